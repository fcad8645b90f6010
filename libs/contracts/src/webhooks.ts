import type { EngramEventType } from './events';
import type { MemoryRecord } from './memory';

/**
 * Webhooks: memory changes delivered over HTTP to a tenant's endpoint, for applications that do
 * not read the log. Each delivery is one event of memory.facts.v1, named here as receivers see it.
 */
export const WEBHOOK_EVENTS = [
  'memory.added',
  'memory.superseded',
  'memory.retracted',
  'memory.archived',
  'memory.expired',
  'user.forgotten',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/**
 * The log event each webhook event is made from. `MemoryReinforced` (the same fact said again:
 * a mention count and a confidence) has no webhook event: what a receiver keeps of a memory does
 * not change.
 */
export const WEBHOOK_EVENT_OF: Readonly<Partial<Record<EngramEventType, WebhookEventName>>> = {
  MemoryAdded: 'memory.added',
  MemorySuperseded: 'memory.superseded',
  MemoryRetracted: 'memory.retracted',
  MemoryArchived: 'memory.archived',
  MemoryExpired: 'memory.expired',
  UserForgotten: 'user.forgotten',
};

/** The webhook event a log event type is delivered as; undefined for the types no webhook carries. */
export function webhookEventOf(type: string): WebhookEventName | undefined {
  return Object.prototype.hasOwnProperty.call(WEBHOOK_EVENT_OF, type) ? WEBHOOK_EVENT_OF[type as EngramEventType] : undefined;
}

/** A memory as a delivery carries it: its whole state after the change, as `GET /v1/users/:userId/memories` lists it. */
export type WebhookMemory = Omit<MemoryRecord, 'appliedItemIds'>;

/**
 * The JSON body of every delivery. `id` is the log event's id: the same on every attempt and for
 * every subscription, so a receiver deduplicates by it (deliveries are at least once).
 */
export interface WebhookPayload {
  readonly id: string;
  readonly type: WebhookEventName;
  readonly userId: string;
  /** When engram learned the change. */
  readonly recordedAt: string;
  readonly data: {
    /** The memory changed (every memory.* event, unless its user was forgotten before engram could read it). */
    readonly memoryId?: string;
    /** Its state after the change; absent when `redacted`. */
    readonly memory?: WebhookMemory;
  };
  /** The user was forgotten: the delivery carries ids and its type, no content. */
  readonly redacted?: true;
}

/** Headers of a delivery. The signature is Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
export const WEBHOOK_HEADERS = {
  signature: 'engram-signature',
  eventId: 'engram-event-id',
  eventType: 'engram-event-type',
  webhookId: 'engram-webhook-id',
} as const;
