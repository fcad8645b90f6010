import type { MemoryRecord } from '@engram/contracts';
import { episodeSessionOf } from '../extraction/episodes';
import type { RankedMemory } from './ranking';
import { episodeReferentFamilies, referentFamiliesOf, type ReferenceQuestion } from './references';

/**
 * How ranking answers a question pointing back at something said before (`RankingQuery.reference`,
 * ranking.ts): which candidates it points at, which of them a later one outdates, and that an
 * outdated one ranks below what outdates it.
 */

/** The referents among the candidates of a reference question, and the conversation each was said in. */
export interface Referents {
  has(memory: MemoryRecord): boolean;
  conversationOf(memory: MemoryRecord): string;
  /**
   * The memory's coverage of the question (`share` of its `terms` terms), what it points back at
   * counted as one more term, held by its referents: "就按上次说的办吧" shares no word with the plan.
   */
  coverage(memory: MemoryRecord, share: number, terms: number): number;
}

/**
 * The candidates a reference question points at: referents of the families it asks for (a decision
 * or plan, a recommendation, a remembered item: `referentFamiliesOf`) and the episodes of the turns
 * that said one (the whole turn, where the fact is a clause): a referent's turn among the candidates,
 * or keyed by a referent's attribute (`episodeReferentFamilies`). A conversation is the session of an
 * episode, for a fact the session of its turn's episode among the candidates, else its own turn.
 */
export function referentsAmong(reference: ReferenceQuestion, candidates: readonly { readonly memory: MemoryRecord }[]): Referents {
  const asked = new Set(reference.families);
  const refers = (memory: MemoryRecord) => referentFamiliesOf(memory).some((family) => asked.has(family));
  const referentTurns = new Set(candidates.flatMap(({ memory }) => (refers(memory) ? memory.sourceTurnIds : [])));
  const sessionOfTurn = new Map<string, string>();
  for (const { memory } of candidates) {
    const session = episodeSessionOf(memory);
    if (session !== null) sessionOfTurn.set(memory.sourceTurnIds[0], session);
  }
  const has = (memory: MemoryRecord) =>
    refers(memory) ||
    (memory.kind === 'episode' &&
      (memory.sourceTurnIds.some((turn) => referentTurns.has(turn)) ||
        episodeReferentFamilies(memory).some((family) => asked.has(family))));
  return {
    has,
    coverage: (memory, share, terms) => (share * terms + (has(memory) ? 1 : 0)) / (terms + 1),
    conversationOf: (memory) => {
      const turn = memory.sourceTurnIds[0];
      return episodeSessionOf(memory) ?? (turn !== undefined ? (sessionOfTurn.get(turn) ?? `turn:${turn}`) : `memory:${memory.memoryId}`);
    },
  };
}

/**
 * For a question pointing back at something said before: each referent said in an earlier
 * conversation than another referent that holds at least as much of the question, with the ids of
 * those later ones. "上次" is the latest: of two plans, the one made later; a plan the question
 * names by its words ("上次那个数据库迁移的方案") is not outdated by a later one it does not name.
 */
export function laterReferents(
  referents: Referents,
  candidates: readonly { readonly memory: MemoryRecord; readonly coverage: number }[],
): Map<string, string[]> {
  const said = candidates
    .filter(({ memory }) => referents.has(memory))
    .map(({ memory, coverage }) => ({
      memory,
      coverage,
      conversation: referents.conversationOf(memory),
      at: Date.parse(memory.validFrom),
    }));
  const later = new Map<string, string[]>();
  for (const r of said) {
    const after = said.filter((l) => l.conversation !== r.conversation && l.at > r.at && l.coverage >= r.coverage);
    if (after.length > 0)
      later.set(
        r.memory.memoryId,
        after.map((l) => l.memory.memoryId),
      );
  }
  return later;
}

/** `mismatch` for a memory that is no referent, or an outdated one (`laterReferents`); 1 for every memory of any other question. */
export function referenceSteering(
  referents: Referents | null,
  later: ReadonlyMap<string, readonly string[]>,
  mismatch: number,
): (memory: MemoryRecord) => number {
  return (memory) => (!referents || (referents.has(memory) && !later.has(memory.memoryId)) ? 1 : mismatch);
}

/**
 * A referent another one outdates (`laterReferents`) ranks below the best of those: its score is
 * at most `mismatch` of theirs. Steering alone would not do it: an earlier recommendation said in
 * a short sentence can be three times as relevant to the words the index was searched with as
 * the plan the question means.
 */
export function belowLaterReferents(
  ranked: readonly RankedMemory[],
  later: ReadonlyMap<string, readonly string[]>,
  mismatch: number,
): RankedMemory[] {
  if (later.size === 0) return [...ranked];
  const scoreOf = new Map(ranked.map((r) => [r.memory.memoryId, r.score]));
  return ranked.map((r) => {
    const outdating = (later.get(r.memory.memoryId) ?? []).flatMap((id) => scoreOf.get(id) ?? []);
    if (outdating.length === 0) return r;
    const cap = mismatch * Math.max(...outdating);
    return cap < r.score ? { ...r, score: cap } : r;
  });
}
