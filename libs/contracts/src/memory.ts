/** The memory model shared by every stage (see docs/memory-model.md). */
/**
 * `procedure`: a rule for how the assistant should act ("以后报价先给区间再给明细", "always answer in English").
 * `summary`: a session's rolling summary, derived by the resolver (never extracted, never ranked).
 */
export const MEMORY_KINDS = ['preference', 'fact', 'task', 'decision', 'profile', 'episode', 'insight', 'procedure', 'summary'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export const TURN_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

export const MEMORY_STATUSES = ['active', 'retracted', 'archived', 'expired'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** One fact per item, as the extractor produces it. */
export interface ExtractedItem {
  /** Deterministic: the extraction event id plus the item's index. */
  readonly itemId: string;
  readonly kind: MemoryKind;
  /** Whose fact it is: `user`, `assistant`, or a named third party. */
  readonly subject: string;
  /** What about them: `editor`, `database`, `budget`, … Together with subject, the merge key. */
  readonly attribute: string;
  readonly value: string;
  /** The fact as one self-contained sentence, in the user's language. */
  readonly content: string;
  readonly entities: readonly string[];
  readonly confidence: number;
  readonly importance: number;
  readonly ephemeral: boolean;
  /** `assert` adds or changes a fact; `retract` says it is no longer true. */
  readonly operation: 'assert' | 'retract';
  readonly validFrom: string;
  /** When what it says stops holding (world time): it set its own time scope ("今天", "this week", "这次"). */
  readonly expiresAt?: string;
  readonly sourceTurnIds: readonly string[];
  readonly extractorVersion: string;
  /** Who said the source turn, when the producer named them (`speaker` of the turn). */
  readonly speaker?: string;
  /**
   * What else the memory is found by, never shown: for an episode, the facts extracted from its
   * turn ("attribute value"). The search projection adds the speaker and the date in words.
   */
  readonly keys?: readonly string[];
  /**
   * The item corrects something said before ("不对，改成9点", "actually, …", "不是X，是Y"): `named`
   * when it names what it corrects (its own subject/attribute), `open` when it does not ("no, make
   * it 10"). The resolver lets it supersede (or, for a retraction, retract) what it answers even
   * when no memory holds its merge key (docs/memory-model.md §3). Absent on every other item.
   */
  readonly correction?: 'named' | 'open';
}

/** One past value of a memory, kept when a newer value supersedes it. */
export interface MemoryVersion {
  readonly version: number;
  readonly value: string;
  readonly content: string;
  readonly validFrom: string;
  /** When it stopped being true: the successor's validFrom. Null while current. */
  readonly validTo: string | null;
  /** When engram learned this value. */
  readonly recordedAt: string;
  /** When engram learned it was no longer current. Null while current. */
  readonly supersededAt: string | null;
  readonly sourceTurnIds: readonly string[];
  /** Insights only: the memories this version was derived from. */
  readonly sources?: readonly string[];
}

/**
 * Two statements on one subject that cannot both hold (docs/memory-model.md §3): the current value
 * says a standing constraint does not hold that an earlier version said did ("我对青霉素过敏", later
 * "我可以用青霉素"), or the reverse. The newer is current; the note says what it contradicts until
 * the user confirms the newer: says it again, or the application confirms it. A new value drops it.
 * Both statements are versions of the one memory, so the note points into its `history`.
 */
export interface MemoryConflict {
  /** The version of `history` the current value contradicts. */
  readonly previousVersion: number;
  readonly previousValue: string;
  readonly previousContent: string;
  /** When the contradicted value was said (world time). */
  readonly previousFrom: string;
  /** When the contradiction was said: the current value's `validFrom` (world time). */
  readonly since: string;
}

/** The current state of one memory: the facts projection's document. */
export interface MemoryRecord {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryId: string;
  readonly mergeKey: string;
  readonly kind: MemoryKind;
  readonly subject: string;
  readonly attribute: string;
  readonly value: string;
  readonly content: string;
  readonly entities: readonly string[];
  readonly confidence: number;
  readonly importance: number;
  readonly ephemeral: boolean;
  /** Pinned memories (profile facts) are injected first on every recall. */
  readonly pinned: boolean;
  /** Health data (an allergy, a condition): shown and exported marked as such; absent when not. */
  readonly sensitive?: boolean;
  readonly status: MemoryStatus;
  /** Content version: 1, then +1 on every supersede. */
  readonly version: number;
  /** Bumped by every decision applied; projections apply only newer revisions. */
  readonly revision: number;
  readonly mentionCount: number;
  readonly sourceTurnIds: readonly string[];
  /** Who said the source turn, when named (see ExtractedItem.speaker). */
  readonly speaker?: string;
  /** Search keys that are not shown (see ExtractedItem.keys). */
  readonly keys?: readonly string[];
  /** Insights only: ids of the memories the insight is derived from (optional: older records have none). */
  readonly sources?: readonly string[];
  /** Why the memory is not active, when the application said so (the reason of a retraction request). */
  readonly statusReason?: string;
  /** The current value contradicts an earlier one and the user has not confirmed it yet; absent otherwise. */
  readonly conflict?: MemoryConflict;
  /** Extracted item ids already folded in: a replayed extraction is a no-op. */
  readonly appliedItemIds: readonly string[];
  readonly validFrom: string;
  readonly validTo: string | null;
  /** When what it says stops holding (world time, from a stated time scope): expired by forgetting then. */
  readonly expiresAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastSeenAt: string;
  /** Older values, oldest first. */
  readonly history: readonly MemoryVersion[];
}
