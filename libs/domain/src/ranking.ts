import type { MemoryKind, MemoryRecord } from '@engram/contracts';
import type { SearchHit } from '@engram/ports';
import { tokenize } from './tokenizer';

/**
 * Recall's ranking. Relevance is a normalised linear fusion: BM25 over the best BM25 score of the
 * query (the shape of the lexical ranking, which is what a good baseline gets right), the cosine
 * above a floor (the hashing embedder's cosine of unrelated texts is not 0: on the shipped eval set
 * half of all unrelated pairs score 0, 10% above 0.11, a few near 0.3), and the share of the
 * query's terms the memory holds, its attribute included ("which editor" finds "I prefer VS Code").
 *
 * Two choices make the ranking answer the query instead of listing the newest memories:
 * - An absolute gate. Normalised BM25 always gives the best hit 1.0, even for a question the user
 *   never talked about; so a memory must share a real part of the query's terms (coverage) or be
 *   close in embedding space, or it is not a candidate at all. "Should recall nothing" questions
 *   then come back empty.
 * - Time is a gentle multiplier, not a filter: score = relevance × (floor + (1 − floor)·decay) ×
 *   importance factor × confidence factor. An old fact that answers the question beats a fresh one
 *   that does not; between equally relevant memories the fresher one wins (corrections).
 *
 * Rankers that only know ranks (no raw scores) fall back to reciprocal rank fusion.
 */
export interface RankingConfig {
  /** Days after which a memory's decay halves; null means it never decays (profile facts). */
  readonly halfLifeDays: Readonly<Record<MemoryKind, number | null>>;
  readonly rrfK: number;
  /** Memories scoring below this are not worth a prompt's tokens. */
  readonly threshold: number;
  /**
   * How much importance and confidence move the score: factor = (1 - w) + w·x. At the default
   * 0.5 an unimportant memory keeps half its weight, so relevance still leads.
   */
  readonly weights?: { readonly importance?: number; readonly confidence?: number };
  /** Share of the score that decay can take away: 0.3 means even a very old memory keeps 70%. */
  readonly decayWeight?: number;
  readonly relevance?: Partial<RelevanceConfig>;
  /**
   * Use: how much a memory that recall keeps returning, recently, gains — factor 1 + w·usage with
   * usage = (1 − e^(−hits/5)) · 2^(−days since last access / half-life), in [0, 1). Bounded and
   * small (default +10% at most) so it breaks ties toward memories that proved useful without a
   * rich-get-richer loop overriding relevance; the use fades when recall stops returning it.
   */
  readonly access?: { readonly weight: number; readonly halfLifeDays: number };
}

export interface RelevanceConfig {
  /** Linear weights of normalised BM25, of the cosine above its floor and of query-term coverage. */
  readonly bm25Weight: number;
  readonly cosineWeight: number;
  readonly coverageWeight: number;
  /** Cosine at or below this says nothing (hashing-embedder noise level). */
  readonly cosineFloor: number;
  /** A memory passes the gate with at least this share of the query's terms… */
  readonly minCoverage: number;
  /** …or with at least this cosine to the query. */
  readonly cosineGate: number;
}

export const defaultRelevanceConfig: RelevanceConfig = {
  bm25Weight: 0.75,
  cosineWeight: 0.25,
  coverageWeight: 0.35,
  cosineFloor: 0.1,
  minCoverage: 0.1,
  cosineGate: 0.35,
};

export const defaultRankingConfig: RankingConfig = {
  halfLifeDays: { task: 7, decision: 7, fact: 30, preference: 30, profile: null, episode: 14, insight: 60 },
  rrfK: 60,
  threshold: 0.05,
  weights: { importance: 0.5, confidence: 0.5 },
  decayWeight: 0.3,
  relevance: defaultRelevanceConfig,
  access: { weight: 0.1, halfLifeDays: 30 },
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
    /** Share of the query's terms the memory holds (1 when no query terms were given). */
    readonly coverage?: number;
    readonly decay: number;
    readonly importance: number;
    readonly confidence: number;
    readonly ageDays: number;
    /** Recent use by recall (0 when never recalled), see RankingConfig.access. */
    readonly usage: number;
  };
}

export interface RankingCandidate {
  readonly memory: MemoryRecord;
  readonly fusion: FusionScore;
  /** How often and when recall last returned this memory (the access projection), if ever. */
  readonly access?: { readonly hits: number; readonly lastAccessAt: string };
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
 * score = relevance × (1 − w + w·decay) × importance factor × confidence factor (see the top of
 * this file), after the relevance gate (recall then applies `dropCovered`).
 * Age counts from when the fact was last said (lastSeenAt, or validFrom if later): world time, so
 * a rebuild months later ranks exactly as before. Inactive memories are dropped.
 *
 * `queryTerms` (tokenize(query)) enable the coverage gate; without them every candidate passes it.
 */
export function rankMemories(
  candidates: readonly RankingCandidate[],
  now: Date,
  config: RankingConfig = defaultRankingConfig,
  queryTerms?: readonly string[],
): RankedMemory[] {
  const relevanceConfig = { ...defaultRelevanceConfig, ...config.relevance };
  const importanceWeight = config.weights?.importance ?? 0.5;
  const confidenceWeight = config.weights?.confidence ?? 0.5;
  const decayWeight = config.decayWeight ?? defaultRankingConfig.decayWeight ?? 0.3;
  const accessConfig = config.access ?? { weight: 0, halfLifeDays: 30 };
  const active = candidates.filter((c) => c.memory.status === 'active');
  const bestBm25 = Math.max(0, ...active.map((c) => c.fusion.bm25 ?? 0));
  const terms = queryTerms ? [...new Set(queryTerms)] : [];
  const ranked = active
    .map(({ memory, fusion, access }): RankedMemory | null => {
      const coverage = terms.length > 0 ? coverageOf(terms, memory) : 1;
      const cosine = fusion.cosine ?? 0;
      if (coverage < relevanceConfig.minCoverage && cosine < relevanceConfig.cosineGate) return null;
      const relevance = relevanceOf(fusion, bestBm25, coverage, terms.length > 0, config, relevanceConfig);
      const ageDays = ageInDays(memory, now);
      const decay = decayFor(memory.kind, ageDays, config);
      const importance = memory.importance;
      const confidence = memory.confidence;
      const usage = usageOf(access, now, accessConfig.halfLifeDays);
      const score =
        relevance *
        (1 - decayWeight + decayWeight * decay) *
        (1 - importanceWeight + importanceWeight * importance) *
        (1 - confidenceWeight + confidenceWeight * confidence) *
        (1 + accessConfig.weight * usage);
      return { memory, score, components: { relevance, coverage, decay, importance, confidence, ageDays, usage } };
    })
    .filter((r): r is RankedMemory => r !== null && r.score >= config.threshold)
    .sort((a, b) => b.score - a.score || compareIds(a.memory.memoryId, b.memory.memoryId));
  return ranked;
}

/**
 * Normalised linear fusion when the engines gave raw scores; RRF over the best possible RRF
 * (first in both lists) when they gave ranks only.
 */
function relevanceOf(
  fusion: FusionScore,
  bestBm25: number,
  coverage: number,
  measured: boolean,
  config: RankingConfig,
  r: RelevanceConfig,
): number {
  if (fusion.bm25 === undefined && fusion.cosine === undefined) {
    return Math.min(1, fusion.rrf / (2 / (config.rrfK + 1)));
  }
  const lexical = bestBm25 > 0 && fusion.bm25 !== undefined ? Math.max(0, fusion.bm25) / bestBm25 : 0;
  const semantic = Math.max(0, ((fusion.cosine ?? 0) - r.cosineFloor) / (1 - r.cosineFloor));
  // Without query terms there is no coverage to weigh (it reads 1, "not measured").
  const coverageWeight = measured ? r.coverageWeight : 0;
  const total = r.bm25Weight + r.cosineWeight + coverageWeight;
  return Math.min(1, (r.bm25Weight * lexical + r.cosineWeight * semantic + coverageWeight * coverage) / total);
}

/**
 * Share of the query's distinct terms found in what the memory is searched by. A Chinese term counts
 * when it appears anywhere in the text: segmentation differs between a statement and a question
 * ("搬家定在 11 月 8 号" holds 搬家, "哪天搬的家" asks for 搬 and 家), characters do not.
 */
export function coverageOf(queryTerms: readonly string[], memory: MemoryRecord): number {
  if (queryTerms.length === 0) return 1;
  // The attribute says what the memory is about ("editor" for "I prefer VS Code"): a query may name it.
  const about = memory.kind === 'episode' ? '' : memory.attribute.replace(/[:_/-]+/g, ' ');
  const text = [memory.content, memory.value, ...memory.entities, about].join(' ');
  const held = new Set(tokenize(text));
  const folded = text.normalize('NFKC').toLowerCase();
  const found = queryTerms.filter((t) => held.has(t) || (HAN.test(t) && folded.includes(t)));
  return found.length / queryTerms.length;
}

const HAN = /\p{Script=Han}/u;

/**
 * A memory whose source turns are all already behind a better-ranked memory adds nothing to the
 * prompt (the fact "数据库用 PostgreSQL" and the episode of the turn that said it): the lower one goes.
 */
export function dropCovered(ranked: readonly RankedMemory[]): RankedMemory[] {
  const seen = new Set<string>();
  return ranked.filter(({ memory }) => {
    const fresh = memory.sourceTurnIds.length === 0 || memory.sourceTurnIds.some((id) => !seen.has(id));
    for (const id of memory.sourceTurnIds) seen.add(id);
    return fresh;
  });
}

export function decayFor(kind: MemoryKind, ageDays: number, config: Pick<RankingConfig, 'halfLifeDays'>): number {
  const halfLife = config.halfLifeDays[kind];
  if (halfLife === null || halfLife === undefined || halfLife <= 0) return 1;
  return Math.exp((-Math.LN2 * ageDays) / halfLife);
}

/** Saturating in hits (5 hits ≈ 0.63, 15 ≈ 0.95), halving every `halfLifeDays` since the last access. */
export function usageOf(access: RankingCandidate['access'], now: Date, halfLifeDays: number): number {
  if (!access || access.hits <= 0) return 0;
  const last = Date.parse(access.lastAccessAt);
  const days = Number.isNaN(last) ? Infinity : Math.max(0, (now.getTime() - last) / DAY_MS);
  const fade = halfLifeDays > 0 ? Math.pow(2, -days / halfLifeDays) : 1;
  return (1 - Math.exp(-access.hits / 5)) * fade;
}

function ageInDays(memory: MemoryRecord, now: Date): number {
  const reference = Math.max(Date.parse(memory.lastSeenAt), Date.parse(memory.validFrom));
  if (Number.isNaN(reference)) return 0;
  return Math.max(0, (now.getTime() - reference) / DAY_MS);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
