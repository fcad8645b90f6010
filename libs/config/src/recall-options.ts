import type { RankingConfig, ZoneBudget } from '@engram/domain';
import { defaultRankingConfig } from '@engram/domain';
import { relevanceFor } from './embedder-relevance';
import type { EngramConfig } from './engram-config';

/** What the read side is told: how many memories, from how wide a pool, ranked how, within what budget. */
export const RecallOptions = Symbol('RecallOptions');
export interface RecallOptions {
  /** Memories returned when a recall does not ask for `k`. */
  readonly k: number;
  /** BM25 and kNN candidates each. */
  readonly candidates: number;
  readonly legs: 'both' | 'bm25' | 'knn';
  readonly ranking: RankingConfig;
  /** The whole budget and its zones, when a recall's `budget` does not say. */
  readonly tokenBudget: number;
  readonly budget: Required<ZoneBudget>;
  /** Longest a memory may be in the context. */
  readonly memoryCap: { readonly chars: number; readonly tokens: number };
  /** The session's recent turns (0: none), the summary's period (0: no summaries), and the turns a new session carries over. */
  readonly recentTurns: number;
  readonly summaryEvery: number;
  readonly carryOverTurns: number;
  /** ENGRAM_RECALL_AUDIT_TENANTS as written (`*`, a list, or empty). */
  readonly auditTenants: string;
  /** How long recall waits for the embedder, in one attempt, before it answers from BM25 alone. */
  readonly embedTimeoutMs: number;
}

export function recallOptionsFrom(config: EngramConfig): RecallOptions {
  return {
    k: config.ENGRAM_RECALL_K,
    candidates: config.ENGRAM_RECALL_CANDIDATES,
    legs: config.ENGRAM_RECALL_LEGS,
    ranking: rankingConfigFrom(config),
    tokenBudget: config.ENGRAM_TOKEN_BUDGET,
    budget: {
      facts: config.ENGRAM_BUDGET_FACTS,
      procedures: config.ENGRAM_BUDGET_PROCEDURES,
      memories: config.ENGRAM_BUDGET_MEMORIES,
      summary: config.ENGRAM_BUDGET_SUMMARY,
      recent: config.ENGRAM_BUDGET_RECENT,
    },
    memoryCap: { chars: config.ENGRAM_MEMORY_MAX_CHARS, tokens: config.ENGRAM_MEMORY_MAX_TOKENS },
    recentTurns: config.ENGRAM_RECENT_TURNS,
    summaryEvery: config.ENGRAM_SUMMARY_EVERY,
    carryOverTurns: config.ENGRAM_CARRY_OVER_TURNS,
    auditTenants: config.ENGRAM_RECALL_AUDIT_TENANTS,
    embedTimeoutMs: config.ENGRAM_RECALL_EMBED_TIMEOUT_MS,
  };
}

/**
 * The domain's ranking defaults (`defaultRankingConfig`, where every default is written) with what
 * the configuration sets: the half-lives that have a variable, the threshold, the priors' weight and
 * use, use's half-life, and the embedder's relevance (`relevanceFor`).
 */
export function rankingConfigFrom(config: EngramConfig): RankingConfig {
  const embedder = relevanceFor(config);
  return {
    ...defaultRankingConfig,
    halfLifeDays: {
      ...defaultRankingConfig.halfLifeDays,
      task: config.ENGRAM_HALF_LIFE_TASK_DAYS,
      decision: config.ENGRAM_HALF_LIFE_DECISION_DAYS,
      fact: config.ENGRAM_HALF_LIFE_FACT_DAYS,
      preference: config.ENGRAM_HALF_LIFE_PREFERENCE_DAYS,
    },
    threshold: config.ENGRAM_RECALL_THRESHOLD,
    relevance: {
      ...defaultRankingConfig.relevance,
      cosineFloor: embedder.floor,
      cosineGate: embedder.gate,
      cosineAdmit: embedder.admit,
      cosineWeight: embedder.cosineWeight,
      coverageWeight: embedder.coverageWeight,
    },
    priors: { ...defaultRankingConfig.priors, weight: config.ENGRAM_PRIOR_WEIGHT, use: config.ENGRAM_ACCESS_WEIGHT },
    access: { halfLifeDays: config.ENGRAM_ACCESS_HALF_LIFE_DAYS },
  };
}
