/**
 * Every event engram writes or reads travels in this envelope. Events are
 * readonly data: a type literal, a versioned payload, and metadata.
 */
export interface EventEnvelope<TType extends string = string, TPayload = unknown> {
  /** Deterministic where the event is derived, so a replay yields the same id. */
  readonly eventId: string;
  readonly type: TType;
  readonly schemaVersion: number;
  readonly tenantId: string;
  readonly userId: string;
  /** When it happened in the user's world (ISO-8601). */
  readonly occurredAt: string;
  /** When engram learned it (ISO-8601). */
  readonly recordedAt: string;
  /** The event that caused this one; null for events that enter from outside. */
  readonly causationId: string | null;
  /** Follows one turn through every stage. */
  readonly correlationId: string;
  readonly payload: TPayload;
}

/** Topics are keyed by `tenantId:userId`: one user's events stay ordered on one partition. */
export function partitionKey(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}
