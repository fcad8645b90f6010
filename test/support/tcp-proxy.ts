import * as net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of one server, that a test turns off and on: an outage of that
 * server as engram sees it, while the server itself (shared with other tests) keeps running.
 *
 * - `cut()`: the server is gone — every open connection is reset and new ones are refused.
 * - `freeze()`: the server hangs — connections are accepted and kept, but nothing passes either way.
 * - `restore()`: the server is back — new connections pass again (frozen ones are reset, as a
 *   server that comes back from a hang has usually lost them).
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket | undefined }>();
  private state: 'open' | 'cut' | 'frozen' = 'open';

  private constructor(
    private readonly target: { readonly host: string; readonly port: number },
    private listenPort: number,
  ) {}

  /** A proxy to `host:port`, listening on a free port of 127.0.0.1. */
  static async start(target: string): Promise<TcpProxy> {
    const [host, port] = target.split(':');
    const proxy = new TcpProxy({ host, port: Number(port) }, 0);
    await proxy.listen();
    return proxy;
  }

  /** Where engram connects instead of the server: `127.0.0.1:<port>`. */
  get address(): string {
    return `127.0.0.1:${this.listenPort}`;
  }

  /** The server goes away: open connections are reset, new ones refused. */
  async cut(): Promise<void> {
    this.state = 'cut';
    const server = this.server;
    this.server = undefined;
    this.dropAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The server hangs: connections stay open (and new ones are accepted) but carry nothing. */
  freeze(): void {
    this.state = 'frozen';
    for (const { client, upstream } of this.pairs) {
      client.unpipe();
      upstream?.unpipe();
      client.pause();
      upstream?.pause();
    }
  }

  /** The server is back. */
  async restore(): Promise<void> {
    if (this.state === 'frozen') this.dropAll();
    this.state = 'open';
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // The same port each time: the clients keep the address they were given.
      server.listen(this.listenPort, '127.0.0.1', () => {
        this.listenPort = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  private accept(client: net.Socket): void {
    const pair: { client: net.Socket; upstream: net.Socket | undefined } = { client, upstream: undefined };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', drop).on('close', drop);
    if (this.state === 'frozen') {
      client.pause(); // accepted, never answered
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Resets every connection (RST, as a crashed server's kernel would answer). */
  private dropAll(): void {
    for (const { client, upstream } of [...this.pairs]) {
      client.resetAndDestroy();
      upstream?.destroy();
    }
    this.pairs.clear();
  }
}
