import type { TurnRole } from '@engram/contracts';

/** The sessions projection: screened-or-not turns (masked), for the recent window. */
export const SessionStore = Symbol('SessionStore');

export interface SessionTurn {
  readonly tenantId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly role: TurnRole;
  readonly speaker?: string;
  readonly text: string;
  readonly occurredAt: string;
}

export interface SessionStore {
  /** Idempotent per (tenant, user, turnId): a turn sent twice is stored once. */
  append(turns: readonly SessionTurn[]): Promise<void>;
  /** The last `limit` turns of a session, oldest first. */
  recent(tenantId: string, userId: string, sessionId: string, limit: number): Promise<SessionTurn[]>;
  /** The ids of every turn of these sessions of the user, sorted (recall's session filter: what memories rest on). */
  turnIds(tenantId: string, userId: string, sessionIds: readonly string[]): Promise<string[]>;
  /** The user's turns with these ids (those it holds, in any session), oldest first: what a memory was said in. */
  turnsById(tenantId: string, userId: string, turnIds: readonly string[]): Promise<SessionTurn[]>;
  /**
   * The user's session, other than `excludingSessionId`, with the latest turn at or before `before`
   * (ISO instant; ties: the turn stored last); null when there is none. A new session starts from it.
   */
  previousSession(tenantId: string, userId: string, excludingSessionId: string, before: string): Promise<string | null>;
  countUser(tenantId: string, userId: string): Promise<number>;
  deleteUser(tenantId: string, userId: string): Promise<void>;
  truncate(): Promise<void>;
}
