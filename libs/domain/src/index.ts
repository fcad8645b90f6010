export * from './tokenizer';
export * from './pii-masking';
export * from './cue-matching';
export * from './screening.config';
export * from './decider';
export * from './screening.decider';
export * from './extraction.strategy';
export * from './extraction.decider';
export * from './episodes';
export * from './rules/rule-extractor.config';
export * from './rules/rule-extractor';
export type { LanguagePack } from './rules/language-pack';
export { LANGUAGE_PACKS } from './rules/lang/packs';
export * from './text-values';
export { ResolutionDecider } from './resolution.decider';
export { DEFAULT_PINNED_ATTRIBUTES } from './resolution.state';
export type { ResolutionOptions, ResolverState } from './resolution.state';
export { memoryIdOf } from './resolution.records';
export { normaliseValue, sameValue, similarity, valueShape } from './resolution.matching';
export type { ValueShape } from './resolution.matching';
export * from './ranking/ranking';
export * from './ranking/ranking.config';
export * from './search-keys';
export * from './ranking/query-understanding.config';
export * from './ranking/query-understanding';
export * from './context-assembly';
export * from './excerpt';
export * from './session-summary';
export { ForgettingDecider, DEFAULT_FORGETTING_POLICY, forgettingDecisions, verdictFor, archivalAge } from './forgetting.decider';
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
