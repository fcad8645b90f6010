import type { ExtractedItem, TurnRole } from '@engram/contracts';

/** What an extraction strategy sees of one screened turn (text already PII-masked). */
export interface ExtractionInput {
  readonly tenantId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly role: TurnRole;
  readonly speaker?: string;
  readonly text: string;
  /** The turn before it in the session, when known (TurnRecorded.previousText). */
  readonly previousText?: string;
  readonly occurredAt: string;
  readonly ephemeral: boolean;
  readonly signals: readonly string[];
}

/** An item before the decider gives it a deterministic id and stamps the extractor version. */
export type ExtractedItemDraft = Omit<ExtractedItem, 'itemId' | 'extractorVersion'>;

/** Rules (embedded default) or an LLM (OpenAI-compatible): both return one fact per item. */
export interface ExtractionStrategy {
  /** Part of every derived id: a new version reprocesses into new events instead of colliding. */
  readonly version: string;
  /**
   * True when the strategy decides each item's time scope itself (a model reads "从今天起我吃素" as
   * lasting, where the word "今天" would scope it to a day): an item without `expiresAt` then holds,
   * and the decider reads no scope from its words. Absent (the rules): the words decide.
   */
  readonly decidesTimeScopes?: boolean;
  extract(input: ExtractionInput): Promise<ExtractedItemDraft[]>;
}

/** Subject + attribute: two items with the same key are about the same fact. */
export function mergeKeyOf(item: { readonly subject: string; readonly attribute: string }): string {
  return `${item.subject}/${item.attribute}`;
}

/**
 * Attribute of an item that refers to "whatever was said last" ("that's no longer true",
 * "不是三万，是五万" with no attribute named). A single turn cannot know its referent; the
 * resolver, which holds the user's memories, resolves it to the most recently mentioned one.
 */
export const LAST_MENTIONED = '@last';
