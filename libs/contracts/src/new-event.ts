import type { EventEnvelope } from './envelope';
import { EVENT_SCHEMAS } from './event-schemas';
import type { EngramEvent } from './events';

/** What a new event says; the envelope's bookkeeping (`schemaVersion`, and by default causation and correlation) is filled in. */
export type NewEvent<E extends EngramEvent> = Pick<
  E,
  'eventId' | 'type' | 'tenantId' | 'userId' | 'occurredAt' | 'recordedAt' | 'payload'
> & {
  /** The event that caused this one; absent: it enters from outside (null). */
  readonly causationId?: string | null;
  /** Absent: the event starts its own correlation (its id). */
  readonly correlationId?: string;
};

/**
 * The one place events are made: `newEvent<TurnScreened>({ ...causedBy(turn), eventId, type, … })`.
 * It writes the type's current schema version (TurnRecorded 2, the rest 1 today), so a producer
 * cannot write a version the reader does not know, and the envelope's fields in one order.
 */
export function newEvent<E extends EngramEvent>(event: NewEvent<E>): E {
  return {
    eventId: event.eventId,
    type: event.type,
    schemaVersion: EVENT_SCHEMAS[event.type].currentVersion,
    tenantId: event.tenantId,
    userId: event.userId,
    occurredAt: event.occurredAt,
    recordedAt: event.recordedAt,
    causationId: event.causationId ?? null,
    correlationId: event.correlationId ?? event.eventId,
    payload: event.payload,
  } as E;
}

/** An event that follows from `cause` (a stage's output, a decision on a command): its user, its correlation, caused by it. */
export function causedBy(
  cause: Pick<EventEnvelope, 'eventId' | 'tenantId' | 'userId' | 'correlationId'>,
): Pick<EventEnvelope, 'tenantId' | 'userId' | 'causationId' | 'correlationId'> {
  return { tenantId: cause.tenantId, userId: cause.userId, causationId: cause.eventId, correlationId: cause.correlationId };
}
