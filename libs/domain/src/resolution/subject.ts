// What a change of mind is about: the subject a later statement shares with an earlier memory.
import type { MemoryRecord } from '@engram/contracts';
import { findCue } from '../text/cue-matching';
import { defaultRuleExtractorConfig } from '../rules/rule-extractor.config';
import { normaliseValue, sharedTermIds, termsOf, type Terms } from './resolution.matching';

/**
 * A statement that changes something ("I've changed my mind, afternoons work much better for
 * meetings now", "周报以后改成纯文字吧") is about what it shares with an earlier memory, minus the
 * words of the change itself. What it shares counts by how few of the speaker's facts hold it:
 * "meetings" names one fact of the user's, "work" or "time" name many. A memory of another session
 * is the one changed when the two share a term that names at most `DISTINCT_FACTS` of the speaker's
 * current facts — decided by what the statement is about, not by how far back it was said, so a long
 * history with many facts about work does not let "now I work afternoons" rewrite one of them.
 */
const DISTINCT_FACTS = 2;

/** Words that say a change happened ("now", "switched", "改成", "现在"): they name no subject. */
const CHANGE_WORDS: ReadonlySet<number> = (() => {
  const { correctionLead, changeVerbs, openChangeVerbs, retract } = defaultRuleExtractorConfig.corrections;
  const words = [...correctionLead, ...changeVerbs, ...openChangeVerbs, ...retract];
  return new Set(words.flatMap((cue) => termsOf(cue).slice(1)));
})();

/** How many of the speaker's current facts hold each term: what makes a shared term a subject. */
export type FactFrequency = ReadonlyMap<number, number>;

export function factFrequency(facts: Iterable<MemoryRecord>): FactFrequency {
  const frequency = new Map<number, number>();
  for (const memory of facts) for (const term of termsOf(memory.content).slice(1)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return frequency;
}

/**
 * How strongly a change statement and a memory share a subject: the rarity (1 / facts holding it)
 * summed over the distinctive terms they share; 0 when they share none (see DISTINCT_FACTS).
 */
export function subjectScore(statement: Terms, memory: Terms, frequency: FactFrequency): number {
  let score = 0;
  for (const term of sharedTermIds(statement, memory)) {
    if (CHANGE_WORDS.has(term)) continue;
    const facts = frequency.get(term) ?? 1;
    if (facts <= DISTINCT_FACTS) score += 1 / facts;
  }
  return score;
}

/**
 * Two statements about the present in the same words but for their value ("我最近在学Go语言" in July,
 * "我最近在学Rust语言" in October; "I've been learning Go lately", then "…Rust lately") are one subject:
 * what the speaker is doing now. The newer replaces the older: a "what am I learning lately" question
 * wants Rust, and Go stays in the history.
 */
export function sameFrameNow(statement: { content: string; value: string }, memory: { content: string; value: string }): boolean {
  const { lately } = defaultRuleExtractorConfig.words;
  if (!findCue(statement.content, lately) || !findCue(memory.content, lately)) return false;
  const frame = (text: string, value: string) => {
    const at = value.trim() === '' ? -1 : text.toLowerCase().indexOf(value.trim().toLowerCase());
    return at < 0 ? null : normaliseValue(text.slice(0, at) + ' ' + text.slice(at + value.trim().length));
  };
  const a = frame(statement.content, statement.value);
  return (
    a !== null && a !== '' && a === frame(memory.content, memory.value) && normaliseValue(statement.value) !== normaliseValue(memory.value)
  );
}
