import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WEBHOOK_HEADERS, type WebhookPayload } from '@engram/contracts';
import { verifyWebhookSignature } from '@engram/domain';

/** One request the receiver got, as it got it. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly payload: WebhookPayload;
  /** The status it answered. */
  readonly answered: number;
  readonly at: number;
}

/**
 * A real webhook receiver: a node http server on 127.0.0.1 that records every POST and answers
 * what `answer` says (204 by default). `down()` stops listening (connections are refused, as from
 * a receiver that is away) and `up()` listens again on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  /** The status to answer a delivery with (by default 204). */
  answer: (payload: WebhookPayload) => number = () => 204;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/engram`;
  }

  async up(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let payload: WebhookPayload;
        try {
          payload = JSON.parse(body) as WebhookPayload;
        } catch {
          response.writeHead(400).end();
          return;
        }
        const answered = this.answer(payload);
        this.received.push({ headers: request.headers, body, payload, answered, at: Date.now() });
        response.writeHead(answered).end();
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: deliveries fail to connect until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** The deliveries it accepted (answered 2xx), in arrival order. */
  accepted(): ReceivedDelivery[] {
    return this.received.filter((r) => r.answered >= 200 && r.answered < 300);
  }

  /** Whether a delivery's signature verifies with `secret` (and its timestamp is recent). */
  static verifies(delivery: ReceivedDelivery, secret: string): boolean {
    const header = delivery.headers[WEBHOOK_HEADERS.signature];
    return (
      typeof header === 'string' &&
      delivery.headers[WEBHOOK_HEADERS.eventId] === delivery.payload.id &&
      verifyWebhookSignature(header, secret, delivery.body, { nowSeconds: Math.floor(delivery.at / 1000) })
    );
  }
}
