import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for a paid remote JSON API (an LLM's chat completions, a hosted embedding
 * service) on 127.0.0.1: it records every request and answers with what the test's handler returns
 * — recorded or hand-authored responses, errors, delays. Never a stand-in for something engram
 * stores into.
 */
export interface StubRequest<TBody> {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: TBody;
  /** The client's port: requests on one kept-alive connection share it. */
  readonly remotePort: number;
}

export interface StubAnswer {
  readonly status?: number;
  /** A value to send as JSON, or a raw string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Wait before answering (for timeouts). */
  readonly delayMs?: number;
}

/** `attempt` counts requests since the last reset, from 1: "fail twice, then answer". */
export type StubHandler<TBody> = (request: StubRequest<TBody>, attempt: number) => StubAnswer;

export class JsonHttpStub<TBody> {
  readonly requests: StubRequest<TBody>[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: StubRequest<TBody> = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as TBody,
        remotePort: req.socket.remotePort ?? 0,
      };
      this.requests.push(request);
      const answer = this.handler(request, this.requests.length);
      const send = () => {
        if (res.destroyed) return;
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(text);
      };
      if (!answer.delayMs) return send();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send();
      }, answer.delayMs);
      this.timers.add(timer);
    });
  });

  constructor(
    public handler: StubHandler<TBody>,
    private readonly defaultHandler: StubHandler<TBody> = handler,
  ) {}

  /**
   * Listens on a free port of 127.0.0.1, or on `port` (the one it had: a stub stopped to play an
   * outage comes back where its clients look for it); returns the base URL.
   */
  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Forgets the requests seen and answers with `handler` (the default one if none is given). */
  reset(handler: StubHandler<TBody> = this.defaultHandler): void {
    this.requests.length = 0;
    this.handler = handler;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
