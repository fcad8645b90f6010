import type { EventEnvelope } from './envelope';
import type { ExtractedItem, MemoryRecord, TurnRole } from './memory';

// ---- memory.turns.v1 -------------------------------------------------------

export interface TurnRecordedPayload {
  readonly sessionId: string;
  readonly turnId: string;
  readonly role: TurnRole;
  readonly speaker?: string;
  /**
   * The text of the turn before this one in the session, when it came in the same request: the
   * words a short turn needs ("Luna and Oliver!" answers "What are their names?"). Masked like
   * `text`; a search key of the turn's episode, never shown.
   */
  readonly previousText?: string;
  /** Already masked by the gateway: raw PII never reaches the log. */
  readonly text: string;
  /** Schema v2: where the turn came from (`web`, `app`, `wechat`…). Absent in v1 turns. */
  readonly channel?: string;
}
export type TurnRecorded = EventEnvelope<'TurnRecorded', TurnRecordedPayload>;

/** Forget a user everywhere. Travels down every topic so that every projection, and every rebuild, honours it. */
export interface UserForgottenPayload {
  readonly requestedAt: string;
}
export type UserForgotten = EventEnvelope<'UserForgotten', UserForgottenPayload>;

// ---- memory.screened.v1 ----------------------------------------------------

export interface TurnScreenedPayload extends TurnRecordedPayload {
  readonly verdict: 'accepted' | 'rejected';
  /** Why: the cues that matched, or why it was dropped. Kept for audit. */
  readonly reasons: readonly string[];
  readonly signals: readonly string[];
  readonly ephemeral: boolean;
  /** PII placeholder types that were masked in this turn (e.g. PHONE). */
  readonly masked: readonly string[];
  readonly screenerVersion: string;
}
export type TurnScreened = EventEnvelope<'TurnScreened', TurnScreenedPayload>;

// ---- memory.extracted.v1 ---------------------------------------------------

export interface MemoriesExtractedPayload {
  readonly sessionId: string;
  readonly turnId: string;
  readonly items: readonly ExtractedItem[];
  readonly extractorVersion: string;
}
export type MemoriesExtracted = EventEnvelope<'MemoriesExtracted', MemoriesExtractedPayload>;

/**
 * Commands to the resolver, sent through memory.extracted.v1 keyed by user so that the
 * resolver, the fact store's single writer, applies them in order with the user's extractions.
 */

/** Apply the forgetting policy to one user's memories as of `requestedAt`. */
export interface ForgettingRequestedPayload {
  readonly requestedAt: string;
  readonly policy: {
    readonly ephemeralTtlDays: number;
    readonly archiveAfterDays: number;
    readonly archiveConfidence: number;
    /** Absent in commands written before episodes had a retention of their own: 0, kept. */
    readonly episodeRetentionDays?: number;
  };
  /** Last recall of the user's archival candidates, from the access projection when the command was made. */
  readonly lastAccess: readonly { readonly memoryId: string; readonly at: string }[];
}
export type ForgettingRequested = EventEnvelope<'ForgettingRequested', ForgettingRequestedPayload>;

/** Add memories from an export bundle (already re-keyed to this tenant and user, and masked). */
export interface MemoriesImportRequestedPayload {
  readonly importId: string;
  readonly memories: readonly MemoryRecord[];
}
export type MemoriesImportRequested = EventEnvelope<'MemoriesImportRequested', MemoriesImportRequestedPayload>;

/** The application retracts one memory (`DELETE /v1/users/:userId/memories/:memoryId`). */
export interface MemoryRetractionRequestedPayload {
  readonly memoryId: string;
  /** Why, in the caller's words (masked); kept on the retracted memory as `statusReason`. */
  readonly reason: string;
  /** When it stopped being true (world time): the request's instant. */
  readonly requestedAt: string;
}
export type MemoryRetractionRequested = EventEnvelope<'MemoryRetractionRequested', MemoryRetractionRequestedPayload>;

/** Restore an earlier value of one memory as a new version (`POST …/memories/:memoryId/revert`). */
export interface MemoryRevertRequestedPayload {
  readonly memoryId: string;
  /** The version whose value comes back (an earlier one, or the current one of a retracted memory). */
  readonly version: number;
  readonly requestedAt: string;
}
export type MemoryRevertRequested = EventEnvelope<'MemoryRevertRequested', MemoryRevertRequestedPayload>;

/** The user confirmed a memory's current value where it contradicts an earlier one (`POST …/memories/:memoryId/confirm`). */
export interface MemoryConfirmRequestedPayload {
  readonly memoryId: string;
  readonly requestedAt: string;
}
export type MemoryConfirmRequested = EventEnvelope<'MemoryConfirmRequested', MemoryConfirmRequestedPayload>;

/** Facts the application knows for certain (`PUT /v1/users/:userId/profile`), masked. */
export interface ProfileUpdateRequestedPayload {
  readonly attributes: readonly { readonly attribute: string; readonly value: string }[];
  readonly requestedAt: string;
}
export type ProfileUpdateRequested = EventEnvelope<'ProfileUpdateRequested', ProfileUpdateRequestedPayload>;

// ---- memory.facts.v1: the resolver's decisions ------------------------------

/**
 * Every decision carries the memory's full state after it (`memory`): a
 * projection applies it if `memory.revision` is newer than what it holds, so
 * replays and reorderings cannot change the result and nothing is re-decided.
 */
export interface MemoryDecisionPayload {
  readonly memory: MemoryRecord;
  /** The extracted item that caused it, when there was one. */
  readonly itemId: string | null;
}
export type MemoryAdded = EventEnvelope<'MemoryAdded', MemoryDecisionPayload>;
export type MemorySuperseded = EventEnvelope<'MemorySuperseded', MemoryDecisionPayload>;
export type MemoryReinforced = EventEnvelope<'MemoryReinforced', MemoryDecisionPayload>;
export type MemoryRetracted = EventEnvelope<'MemoryRetracted', MemoryDecisionPayload>;
export type MemoryArchived = EventEnvelope<'MemoryArchived', MemoryDecisionPayload>;
export type MemoryExpired = EventEnvelope<'MemoryExpired', MemoryDecisionPayload>;

export type MemoryDecision = MemoryAdded | MemorySuperseded | MemoryReinforced | MemoryRetracted | MemoryArchived | MemoryExpired;

export const MEMORY_DECISION_TYPES = [
  'MemoryAdded',
  'MemorySuperseded',
  'MemoryReinforced',
  'MemoryRetracted',
  'MemoryArchived',
  'MemoryExpired',
] as const satisfies readonly MemoryDecision['type'][];

// ---- memory.access.v1 ------------------------------------------------------

export interface MemoriesAccessedPayload {
  readonly memoryIds: readonly string[];
  readonly accessedAt: string;
}
export type MemoriesAccessed = EventEnvelope<'MemoriesAccessed', MemoriesAccessedPayload>;

/** Every event engram knows, as one union: `switch (event.type)` narrows it. */
export type EngramEvent =
  | TurnRecorded
  | UserForgotten
  | TurnScreened
  | MemoriesExtracted
  | ForgettingRequested
  | MemoriesImportRequested
  | MemoryRetractionRequested
  | MemoryRevertRequested
  | MemoryConfirmRequested
  | ProfileUpdateRequested
  | MemoryDecision
  | MemoriesAccessed;

export type EngramEventType = EngramEvent['type'];
