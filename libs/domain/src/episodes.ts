import type { ExtractedItemDraft, ExtractionInput } from './extraction.strategy';
import { entitiesOf, statesSomething } from './rule-extractor';

/**
 * The episodic layer: a screened turn (already PII-masked) kept whole, with its time and session.
 *
 * Rules (or a model) extract one fact per item and will always miss some: a date said without a
 * cue word, a recommendation not phrased as one, a fact next to a masked phone number. An episode
 * makes every accepted statement searchable anyway, in the user's own words, while the extracted
 * facts stay the precise, correctable layer. Episodes never supersede anything: their merge key is
 * the turn itself (`episode:<session>:<turn>`), and they carry no value. Recall collapses an
 * episode and a fact from the same turn into one line (see `dropCovered` in ranking.ts).
 */
export const EPISODE_CONFIDENCE = 0.7;
export const EPISODE_IMPORTANCE = 0.4;

export function episodeOf(input: ExtractionInput): ExtractedItemDraft | null {
  if (!statesSomething(input)) return null;
  return {
    kind: 'episode',
    subject: input.role === 'assistant' ? 'assistant' : 'user',
    attribute: `episode:${input.sessionId}:${input.turnId}`,
    value: '',
    content: input.text.trim(),
    entities: entitiesOf(input.text),
    confidence: EPISODE_CONFIDENCE,
    importance: EPISODE_IMPORTANCE,
    ephemeral: input.ephemeral,
    operation: 'assert',
    validFrom: input.occurredAt,
    sourceTurnIds: [input.turnId],
  };
}
