export * from './tokenizer';
export * from './pii-masking';
export * from './cue-matching';
export * from './screening.config';
export * from './screening.decider';
export * from './extraction.strategy';
export * from './extraction.decider';
export * from './episodes';
export * from './rules/rule-extractor.config';
export * from './rules/rule-extractor';
export type { LanguagePack } from './rules/language-pack';
export { LANGUAGE_PACKS } from './rules/lang/packs';
export * from './text-values';
export {
  ResolutionDecider,
  DEFAULT_PINNED_ATTRIBUTES,
  memoryIdOf,
  normaliseValue,
  sameValue,
  similarity,
  valueShape,
} from './resolution.decider';
export type { ResolutionOptions, ResolverState, ValueShape } from './resolution.decider';
export * from './ranking';
export * from './ranking.config';
export * from './search-keys';
export * from './query-understanding.config';
export * from './query-understanding';
export * from './context-assembly';
export * from './excerpt';
export * from './session-summary';
export { ForgettingDecider, DEFAULT_FORGETTING_POLICY } from './forgetting.decider';
export type { ForgettingContext, ForgettingDecision, ForgettingPolicy } from './forgetting.decider';
export { memoriesAsOf, memoryAsOf, memoriesValidAt, memoryValidAt, versionsOf } from './as-of';
export * from './recall-filter';
export * from './entity-aliases';
export * from './insights.config';
export {
  InsightDecider,
  compileInsightRules,
  insightMergeKey,
  isInsight,
  withoutInsights,
  INSIGHT_BASE_IMPORTANCE,
  INSIGHT_MAX_CONFIDENCE,
} from './insights';
export type { CompiledInsightRules, InsightOptions, InsightReview } from './insights';
export { MemoryControlDecider, profileExtraction, revertTarget, PROFILE_SOURCE } from './memory-control.decider';
export type { MemoryControlCommand } from './memory-control.decider';
export * from './sealing';
