// Insights: conclusions derived from several consistent memories.
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
