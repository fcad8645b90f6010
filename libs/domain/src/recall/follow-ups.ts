import type { MemoryRecord } from '@engram/contracts';
import { dropCovered, type RankedMemory } from '../ranking/ranking';
import { referentFamiliesOf, type ReferenceQuestion } from '../ranking/references';
import { normaliseEntity } from '../text/entity-aliases';
import type { RecallCandidates } from './recall-candidates';

/**
 * "那个方案后来怎么样了", "How did it go?": a follow-up asks what became of something said before —
 * the referent (ranking/references.ts) — and its answer is what was said *after* it on the same
 * subject ("The Postgres migration went live yesterday" after "We decided to go with Postgres"),
 * which shares no word with the question. So recall searches a second time, with the referent's
 * words (`followUpOf`, by the caller: the search is I/O), and what that search finds said after the
 * referent ranks first, the referent right after (`withFollowUps`).
 */
export interface FollowUp {
  /** What the question asks about: the best-ranked referent of the families it names, else the best-ranked memory. */
  readonly referent: MemoryRecord;
  /** What to search for what followed it: its words. */
  readonly text: string;
}

/** At most this many memories said after the referent are put before it. */
export const FOLLOW_UPS_SHOWN = 2;

/**
 * A follower shares the referent's subject: it names a thing the referent names (an entity:
 * "Postgres"), or its relevance to the referent's words is at least this share of the best (the
 * referent matches its own words best), several of them shared ("官网改版"). One common word ("new",
 * "go") is not a subject: it scores about half this share where one name scores about it.
 */
export const FOLLOW_UP_MIN_RELEVANCE = 0.2;

/** The referent of a follow-up question, from the question's ranking; null for any other question. */
export function followUpOf(reference: ReferenceQuestion | undefined, ranked: readonly RankedMemory[]): FollowUp | null {
  if (!reference?.followUp || ranked.length === 0) return null;
  const asked = new Set(reference.families);
  const referent = ranked.find(({ memory }) => referentFamiliesOf(memory).some((family) => asked.has(family)))?.memory ?? ranked[0].memory;
  // What it is about: its value (an episode has none: its words), and the names it mentions.
  const text = [referent.value || referent.content, ...referent.entities].join(' ');
  return { referent, text };
}

/**
 * The question's ranking with what followed the referent first: of the follow-up search's
 * candidates ranked by the referent's words (`rank`), those said after it, from other turns, at
 * least `FOLLOW_UP_MIN_RELEVANCE` relevant, the best `FOLLOW_UPS_SHOWN`; then the referent; then the rest.
 */
export function withFollowUps(
  ranked: readonly RankedMemory[],
  followUp: FollowUp,
  candidates: RecallCandidates,
  rank: (text: string, candidates: RecallCandidates) => RankedMemory[],
): RankedMemory[] {
  const { referent } = followUp;
  const said = Date.parse(referent.validFrom);
  const own = new Set(referent.sourceTurnIds);
  const byReferent = rank(followUp.text, candidates);
  const best = Math.max(0, ...byReferent.map((r) => r.components.relevance));
  const followers = byReferent
    .filter(
      ({ memory, components }) =>
        Date.parse(memory.validFrom) > said &&
        !memory.sourceTurnIds.some((turn) => own.has(turn)) &&
        (sharesName(referent, memory) || components.relevance >= FOLLOW_UP_MIN_RELEVANCE * best),
    )
    .slice(0, FOLLOW_UPS_SHOWN);
  const first = [...followers, ...ranked.filter((r) => r.memory.memoryId === referent.memoryId)];
  const placed = new Set(first.map((r) => r.memory.memoryId));
  // A follower's turn may also be behind a memory ranked below it (its fact and its episode): one line.
  return dropCovered([...first, ...ranked.filter((r) => !placed.has(r.memory.memoryId))]);
}

/** One names a thing the other names: an entity of either, among the other's entities or in its words. */
function sharesName(a: MemoryRecord, b: MemoryRecord): boolean {
  const named = (one: MemoryRecord, other: MemoryRecord) => {
    const words = normaliseEntity(other.content);
    const theirs = new Set(other.entities.map(normaliseEntity));
    return one.entities.map(normaliseEntity).some((name) => name.length > 1 && (theirs.has(name) || words.includes(name)));
  };
  return named(a, b) || named(b, a);
}
