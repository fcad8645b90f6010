import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import en from '../fixtures/chat-completion-en.json';
import malformed from '../fixtures/chat-completion-malformed-items.json';
import notJson from '../fixtures/chat-completion-not-json.json';
import zh from '../fixtures/chat-completion-zh.json';

/*
 * A local OpenAI-compatible chat-completions server for tests: it answers each turn with a
 * hand-authored fixture (see ../fixtures/README.md — not recordings), chosen by the turn's text.
 */

/** Turn text (as sent in the user message) → the fixture that answers it. */
export const FIXTURE_TURNS = {
  zh: { text: '我喜欢用 VS Code 写 TypeScript，预算控制在三万以内。今天有点累。', response: zh },
  en: { text: "I'm a backend engineer at Stripe, and we decided to use PostgreSQL for the new service. What's the weather today?", response: en },
  malformed: { text: 'Let me tell you about my week.', response: malformed },
  notJson: { text: 'Summarise what you know about me.', response: notJson },
} as const;

export interface ChatRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: {
    model?: string;
    messages: { role: string; content: string }[];
    temperature?: number;
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  };
}
export interface StubAnswer {
  readonly status?: number;
  /** A value to send as JSON, or a raw string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Wait before answering (for timeouts). */
  readonly delayMs?: number;
}
export type Handler = (request: ChatRequest, attempt: number) => StubAnswer;

/** The fixture whose turn the user message carries; a 500 naming the turn when there is none. */
export const replayFixtures: Handler = ({ body }) => {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const fixture = Object.values(FIXTURE_TURNS).find((f) => user.includes(f.text));
  if (fixture) return { body: fixture.response };
  return { status: 500, body: { error: { message: `stub: no fixture for ${JSON.stringify(user)}`, type: 'server_error' } } };
};

/** An answer with nothing to remember, in the chat-completions shape (for turns without a fixture). */
export const noItems: StubAnswer = {
  body: {
    id: 'chatcmpl-stub-empty',
    object: 'chat.completion',
    created: 0,
    model: 'hand-authored-fixture',
    choices: [{ index: 0, message: { role: 'assistant', content: '{"items":[]}', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  },
};

export class ChatCompletionsStub {
  readonly requests: ChatRequest[] = [];
  handler: Handler = replayFixtures;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ChatRequest = { path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      this.requests.push(request);
      const answer = this.handler(request, this.requests.length);
      const send = () => {
        if (res.destroyed) return;
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(text);
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send();
        }, answer.delayMs);
        this.timers.add(timer);
      }
      else send();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(handler: Handler = replayFixtures): void {
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
