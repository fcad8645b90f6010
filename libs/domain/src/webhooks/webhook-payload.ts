import { webhookEventOf } from '@engram/contracts';
import type { MemoryDecision, UserForgotten, WebhookEventName, WebhookPayload } from '@engram/contracts';

/** A delivery's body for an event engram can read: the memory's state after the change. */
export function webhookPayload(event: MemoryDecision | UserForgotten): WebhookPayload {
  const type = webhookEventOf(event.type);
  if (!type) throw new Error(`${event.type} is not delivered by webhooks`);
  if (event.type === 'UserForgotten') return { id: event.eventId, type, userId: event.userId, recordedAt: event.recordedAt, data: {} };
  const { appliedItemIds: _bookkeeping, ...memory } = event.payload.memory;
  return {
    id: event.eventId,
    type,
    userId: event.userId,
    recordedAt: event.recordedAt,
    data: { memoryId: memory.memoryId, memory },
  };
}

export interface RedactedWebhookEvent {
  readonly eventId: string;
  readonly type: WebhookEventName;
  readonly userId: string;
  readonly recordedAt: string;
  readonly memoryId?: string;
}

/** A delivery's body once its user was forgotten: ids and the type, no content. */
export function redactedWebhookPayload(event: RedactedWebhookEvent): WebhookPayload {
  return {
    id: event.eventId,
    type: event.type,
    userId: event.userId,
    recordedAt: event.recordedAt,
    data: event.memoryId === undefined ? {} : { memoryId: event.memoryId },
    redacted: true,
  };
}
