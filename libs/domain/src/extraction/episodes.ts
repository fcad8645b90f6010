import type { MemoryRecord } from '@engram/contracts';
import { NOT_HELD } from './constraint-values';
import type { ExtractedItemDraft, ExtractionInput } from './extraction.strategy';
import { entitiesOf } from '../rules/rule-extractor';

/**
 * The episodic layer: every accepted turn (already PII-masked) kept whole, with its speaker, time
 * and session.
 *
 * Rules (or a model) extract one fact per item and will always miss some: a date said without a
 * cue word, a recommendation not phrased as one, a fact next to a masked phone number. An episode
 * makes every accepted statement searchable anyway, in the user's own words, while the extracted
 * facts stay the precise, correctable layer. Episodes never supersede anything: their merge key is
 * the turn itself (`episode:<session>:<turn>`), and they carry no value. Recall collapses an
 * episode and a fact from the same turn into one line (see `dropCovered` in ranking.ts).
 */
export const EPISODE_CONFIDENCE = 0.7;

/** The merge key of a turn's episode: whose turn it is (`user` or `assistant`), the session and the turn. */
export function episodeMergeKey(subject: 'user' | 'assistant', sessionId: string, turnId: string): string {
  return `${subject}/episode:${sessionId}:${turnId}`;
}
export const EPISODE_IMPORTANCE = 0.4;

/** The session of an episode (its attribute is `episode:<sessionId>:<turnId>`), else null. */
export function episodeSessionOf(memory: Pick<MemoryRecord, 'kind' | 'attribute' | 'sourceTurnIds'>): string | null {
  const turnId = memory.sourceTurnIds[0];
  if (memory.kind !== 'episode' || turnId === undefined) return null;
  const prefix = 'episode:';
  const suffix = `:${turnId}`;
  if (!memory.attribute.startsWith(prefix) || !memory.attribute.endsWith(suffix)) return null;
  return memory.attribute.slice(prefix.length, memory.attribute.length - suffix.length);
}

/**
 * The episode of a turn; `facts` (what was extracted from the same turn) become its search keys —
 * "fact-augmented key expansion": the turn is also found by the attribute and value it stated.
 */
export function episodeOf(input: ExtractionInput, facts: readonly ExtractedItemDraft[] = []): ExtractedItemDraft | null {
  if (input.role === 'system' || input.role === 'tool') return null;
  const keys = [...new Set([...facts.flatMap(factKeys), ...contextKeys(input)])];
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
    ...(input.speaker ? { speaker: input.speaker } : {}),
    ...(keys.length > 0 ? { keys } : {}),
  };
}

/** "editor VS Code": the attribute in words and the value, as a question would name them. */
function factKeys(fact: ExtractedItemDraft): string[] {
  const about = fact.attribute.startsWith('@') ? '' : fact.attribute.replace(/[:_/-]+/g, ' ');
  // "none" (a constraint denied, constraint-values.ts) is no word a question would use.
  const value = fact.value === NOT_HELD ? '' : fact.value;
  return [[about, value].filter(Boolean).join(' ').trim()].filter(Boolean);
}

/**
 * The turn it answers (the gateway sets `previousText` only when another party said the turn
 * before): "Luna and Oliver!" is found by "What are their names?". Measured for every turn, not
 * only short ones: LoCoMo dev recall@10 0.635 → 0.726, shipped set recall@5 0.837 → 0.843
 * (assistant recommendations found by the user's request; a correction's neighbours cost one
 * question of that category). Limiting it to turns of at most 15 words kept almost none of the gain.
 */
function contextKeys(input: ExtractionInput): string[] {
  return input.previousText ? [input.previousText] : [];
}
