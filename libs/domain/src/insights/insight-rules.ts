import { type CueMatcher, cueMatcher } from '../text/cue-matching';
import { DEFAULT_INSIGHT_MIN_SUPPORT, DEFAULT_INSIGHT_RULES, type InsightRule } from './insights.config';

export interface CompiledInsightRules {
  readonly rules: readonly CompiledRule[];
}

export interface CompiledRule {
  readonly rule: InsightRule;
  readonly minSupport: number;
  readonly minGroups: number;
  readonly groups: readonly { readonly id: string; readonly cues: CueMatcher }[];
  readonly exclude: CueMatcher | null;
}

/** Compiles rules once (regexes); `minSupport` fills in for rules that set none. */
export function compileInsightRules(
  rules: readonly InsightRule[] = DEFAULT_INSIGHT_RULES,
  minSupport: number = DEFAULT_INSIGHT_MIN_SUPPORT,
): CompiledInsightRules {
  return {
    rules: rules.map((rule) => ({
      rule,
      minSupport: rule.minSupport ?? minSupport,
      minGroups: rule.minGroups ?? 1,
      groups: rule.groups.map((g) => ({ id: g.id, cues: cueMatcher(g.cues) })),
      exclude: rule.exclude && rule.exclude.length > 0 ? cueMatcher(rule.exclude) : null,
    })),
  };
}
