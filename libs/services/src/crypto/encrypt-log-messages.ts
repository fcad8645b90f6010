// How encrypt-log reads a stored message: whether it is an event (and whose), whether its payload is
// still plaintext, and its identity for the digest that proves a copy complete.
import { isSealed } from '@engram/domain';
import { isDeadLetter } from '../transport/dead-letter';
import { type EventShape, isEventShaped } from './sealing-event-log';

export type Verdict =
  { readonly kind: 'unchanged' | 'unattributed'; readonly raw: string } | { readonly kind: 'sealed' | 'shredded'; readonly raw: string };

export { type EventShape, isEventShaped };

export const isPlaintext = (event: EventShape) => event.type !== 'UserForgotten' && !isSealed(event.payload);
export const userOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

export function parse(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What a message is, for the digest that proves a copy complete and in order: its key and
 * envelope (ids, type, user), which sealing leaves as they were; the raw bytes of anything that
 * is not an event.
 */
export function identityOf(key: string, raw: string, value: unknown): string {
  if (isEventShaped(value)) return `${key}\u0000e\u0000${value.eventId}\u0000${value.type}\u0000${value.tenantId}\u0000${value.userId}`;
  if (isDeadLetter(value)) {
    const inner = parse(value.raw);
    const of = isEventShaped(inner)
      ? `e\u0000${inner.eventId}\u0000${inner.type}\u0000${inner.tenantId}\u0000${inner.userId}`
      : `r\u0000${value.raw}`;
    return `${key}\u0000d\u0000${value.topic}\u0000${value.partition}\u0000${value.offset}\u0000${value.stage}\u0000${value.failedAt}\u0000${of}`;
  }
  return `${key}\u0000r\u0000${raw}`;
}

/** Nothing readable left in it: every event payload sealed, except the tombstone. */
export function holdsNoPlaintext(value: unknown): boolean {
  if (isEventShaped(value)) return !isPlaintext(value);
  if (isDeadLetter(value)) {
    const inner = parse(value.raw);
    return !isEventShaped(inner) || !isPlaintext(inner);
  }
  return true;
}
