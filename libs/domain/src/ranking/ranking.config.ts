import type { MemoryKind } from '@engram/contracts';

/**
 * What recall's ranking can be told (see ranking.ts for how each part is used): the half-lives per
 * kind, the relevance weights and gates, the priors' bounded weight, steering's mismatch, use and
 * session evidence. The defaults are the values the recall figures in docs/benchmarks.md were
 * measured with; `rankingConfigFrom` (libs/config/src/recall-options.ts) maps the configuration onto them.
 */
export interface RankingConfig {
  /** Days after which a memory's decay halves; null means it never decays (profile facts). */
  readonly halfLifeDays: Readonly<Record<MemoryKind, number | null>>;
  readonly rrfK: number;
  /** Memories scoring below this are not worth a prompt's tokens. */
  readonly threshold: number;
  readonly relevance?: Partial<RelevanceConfig>;
  readonly priors?: Partial<PriorConfig>;
  /** Share of its relevance a memory keeps when it is not what the question asks for (speaker, assistant, time). */
  readonly steering?: { readonly mismatch: number };
  /**
   * Use: usage = (1 − e^(−hits/5)) · 2^(−days since last access / half-life), in [0, 1): a
   * memory recall keeps returning, recently; one prior among the others, so bounded like them.
   */
  readonly access?: { readonly halfLifeDays: number };
  /**
   * Session evidence: each memory gains `weight` × (the best score in its session ÷ the best score
   * overall). The rest of an answer is usually said in the conversation where its best match was
   * (evidence aggregated per document, as passage retrieval scores a document by its best passage).
   */
  readonly sessions?: { readonly weight: number };
}

export interface PriorConfig {
  /** Share of the score the priors together can move: 0.1 means at most 10%. */
  readonly weight: number;
  /** How the prior is mixed (weights of a weighted mean of values in [0, 1]). */
  readonly decay: number;
  readonly importance: number;
  readonly confidence: number;
  readonly use: number;
}

export interface RelevanceConfig {
  /** Linear weights of normalised BM25, of the normalised cosine and of query-term coverage. */
  readonly bm25Weight: number;
  readonly cosineWeight: number;
  readonly coverageWeight: number;
  /** Cosine at or below this says nothing (the embedder's level for unrelated texts). */
  readonly cosineFloor: number;
  /** A question has relevant memories when one holds at least this share of the query's terms… */
  readonly minCoverage: number;
  /** …or has at least this cosine to the query. */
  readonly cosineGate: number;
  /** Then a memory is a candidate when the lexical index matched it, it holds `minCoverage` of the terms, or it has at least this cosine. */
  readonly cosineAdmit: number;
}

/**
 * Weights measured with the hashing embedder, whose cosine is a fuzzy copy of the lexical leg:
 * a cosine weight of 0.25 put hybrid below BM25 alone on LoCoMo (0.726 vs 0.733 @10), 0.1 keeps it
 * at or above both legs on both sets. A semantic embedder gets its own weight (see config).
 */
export const defaultRelevanceConfig: RelevanceConfig = {
  bm25Weight: 1,
  cosineWeight: 0.1,
  coverageWeight: 0.2,
  cosineFloor: 0.1,
  minCoverage: 0.1,
  cosineGate: 0.35,
  cosineAdmit: 0.35,
};

export const defaultPriorConfig: PriorConfig = { weight: 0.1, decay: 1, importance: 1, confidence: 1, use: 1 };

export const defaultRankingConfig: RankingConfig = {
  halfLifeDays: { task: 7, decision: 7, fact: 30, preference: 30, profile: null, episode: 14, insight: 60, procedure: null, summary: null },
  rrfK: 60,
  threshold: 0.05,
  relevance: defaultRelevanceConfig,
  priors: defaultPriorConfig,
  // LoCoMo dev @10: 1 → 0.725, 0.8 → 0.739, 0.7 → 0.733, 0.6 → lower (adversarial questions name the wrong speaker).
  steering: { mismatch: 0.8 },
  access: { halfLifeDays: 30 },
  sessions: { weight: 0.1 },
};
