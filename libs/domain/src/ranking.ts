import type { MemoryKind, MemoryRecord } from '@engram/contracts';
import type { SearchHit } from '@engram/ports';

/**
 * Recall's ranking: fuse BM25 and kNN candidates by reciprocal rank (scores of the two engines are
 * not comparable, ranks are), then weigh relevance by how fresh, important and certain a memory is.
 */
export interface RankingConfig {
  /** Days after which a memory's weight halves; null means it never decays (profile facts). */
  readonly halfLifeDays: Readonly<Record<MemoryKind, number | null>>;
  readonly rrfK: number;
  /** Memories scoring below this are not worth a prompt's tokens. */
  readonly threshold: number;
  /**
   * How much importance and confidence move the score: factor = (1 - w) + w·x. At the default
   * 0.5 an unimportant memory keeps half its weight, so relevance still leads.
   */
  readonly weights?: { readonly importance?: number; readonly confidence?: number };
}

export const defaultRankingConfig: RankingConfig = {
  halfLifeDays: { task: 7, decision: 7, fact: 30, preference: 30, profile: null, episode: 14, insight: 60 },
  rrfK: 60,
  threshold: 0.05,
  weights: { importance: 0.5, confidence: 0.5 },
};

export interface FusionScore {
  readonly rrf: number;
  /** 1-based rank in each list the memory appeared in, with the engine's raw score. */
  readonly bm25Rank?: number;
  readonly knnRank?: number;
  readonly bm25?: number;
  readonly cosine?: number;
}

export interface RankedMemory {
  readonly memory: MemoryRecord;
  readonly score: number;
  readonly components: {
    readonly relevance: number;
    readonly decay: number;
    readonly importance: number;
    readonly confidence: number;
    readonly ageDays: number;
  };
}

export interface RankingCandidate {
  readonly memory: MemoryRecord;
  readonly fusion: FusionScore;
}

const DAY_MS = 86_400_000;

/** Reciprocal rank fusion. Hits are re-sorted (score desc, id asc) so ties rank deterministically. */
export function fuse(textHits: readonly SearchHit[], vectorHits: readonly SearchHit[], rrfK: number): Map<string, FusionScore> {
  const fused = new Map<string, FusionScore>();
  const add = (hits: readonly SearchHit[], rankKey: 'bm25Rank' | 'knnRank', scoreKey: 'bm25' | 'cosine') => {
    sortHits(hits).forEach((hit, index) => {
      const previous = fused.get(hit.memoryId) ?? { rrf: 0 };
      if (previous[rankKey] !== undefined) return; // a duplicate hit counts once
      const rank = index + 1;
      fused.set(hit.memoryId, { ...previous, rrf: previous.rrf + 1 / (rrfK + rank), [rankKey]: rank, [scoreKey]: hit.score });
    });
  };
  add(textHits, 'bm25Rank', 'bm25');
  add(vectorHits, 'knnRank', 'cosine');
  return fused;
}

function sortHits(hits: readonly SearchHit[]): SearchHit[] {
  return [...hits].sort((a, b) => b.score - a.score || compareIds(a.memoryId, b.memoryId));
}

/**
 * score = relevance × decay × importance factor × confidence factor, where relevance is the RRF
 * score over the best possible one (first in both lists) and decay halves every half-life of the
 * memory's kind. Age counts from when the fact was last said (lastSeenAt, or validFrom if later):
 * world time, so a rebuild months later ranks exactly as before. Inactive memories are dropped.
 */
export function rankMemories(
  candidates: readonly RankingCandidate[],
  now: Date,
  config: RankingConfig = defaultRankingConfig,
): RankedMemory[] {
  const best = 2 / (config.rrfK + 1);
  const importanceWeight = config.weights?.importance ?? 0.5;
  const confidenceWeight = config.weights?.confidence ?? 0.5;
  return candidates
    .filter((c) => c.memory.status === 'active')
    .map(({ memory, fusion }): RankedMemory => {
      const relevance = Math.min(1, fusion.rrf / best);
      const ageDays = ageInDays(memory, now);
      const decay = decayFor(memory.kind, ageDays, config);
      const importance = memory.importance;
      const confidence = memory.confidence;
      const score =
        relevance *
        decay *
        (1 - importanceWeight + importanceWeight * importance) *
        (1 - confidenceWeight + confidenceWeight * confidence);
      return { memory, score, components: { relevance, decay, importance, confidence, ageDays } };
    })
    .filter((r) => r.score >= config.threshold)
    .sort((a, b) => b.score - a.score || compareIds(a.memory.memoryId, b.memory.memoryId));
}

export function decayFor(kind: MemoryKind, ageDays: number, config: Pick<RankingConfig, 'halfLifeDays'>): number {
  const halfLife = config.halfLifeDays[kind];
  if (halfLife === null || halfLife === undefined || halfLife <= 0) return 1;
  return Math.exp((-Math.LN2 * ageDays) / halfLife);
}

function ageInDays(memory: MemoryRecord, now: Date): number {
  const reference = Math.max(Date.parse(memory.lastSeenAt), Date.parse(memory.validFrom));
  if (Number.isNaN(reference)) return 0;
  return Math.max(0, (now.getTime() - reference) / DAY_MS);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
