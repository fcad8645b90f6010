import {
  type CategoryReport,
  type EvalReport,
  evidenceCoverage,
  type GroupReport,
  type Language,
  percentile,
  questionLanguage,
  type QuestionResult,
  scoreRanking,
  type Scores,
} from './metrics';

const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length);
const round = (value: number, digits = 4): number => Math.round(value * 10 ** digits) / 10 ** digits;
const roundOrNull = (value: number | null): number | null => (value === null ? null : round(value));
const hits = (ranked: readonly string[], evidence: readonly string[]) => ranked.some((id) => evidence.includes(id));

/** One ranker's scores over questions with evidence (null when there are none). */
function scoresOf(
  answerable: readonly QuestionResult[],
  ranking: (r: QuestionResult) => readonly string[],
  k: number,
): Scores<number | null> {
  if (answerable.length === 0) return { recallAtK: null, recallAt5: null, recallAt10: null, mrr: null, hitRateAtK: null };
  const at = (cut: number) => answerable.map((r) => scoreRanking(ranking(r).slice(0, cut), r.evidence));
  const atK = at(k);
  return {
    recallAtK: round(mean(atK.map((s) => s.recall))),
    recallAt5: round(mean(at(5).map((s) => s.recall))),
    recallAt10: round(mean(at(10).map((s) => s.recall))),
    mrr: round(mean(atK.map((s) => s.reciprocalRank))),
    hitRateAtK: round(mean(atK.map((s) => (s.hit ? 1 : 0)))),
  };
}

const orZero = (scores: Scores<number | null>): Scores => ({
  recallAtK: scores.recallAtK ?? 0,
  recallAt5: scores.recallAt5 ?? 0,
  recallAt10: scores.recallAt10 ?? 0,
  mrr: scores.mrr ?? 0,
  hitRateAtK: scores.hitRateAtK ?? 0,
});

function group(results: readonly QuestionResult[], k: number, sources: ReadonlyMap<string, ReadonlySet<string>>): GroupReport {
  const answerable = results.filter((r) => r.evidence.length > 0);
  const unanswerable = results.filter((r) => r.evidence.length === 0);
  const baseline = scoresOf(answerable, (r) => r.baseline, k);
  return {
    questions: results.length,
    ...scoresOf(answerable, (r) => r.recalled, k),
    baselineRecallAtK: baseline.recallAtK,
    baseline,
    dense: scoresOf(answerable, (r) => r.dense, k),
    coverage: roundOrNull(evidenceCoverage(answerable, sources).share),
    pinnedEvidence: answerable.length > 0 ? round(mean(answerable.map((r) => (hits(r.pinned, r.evidence) ? 1 : 0)))) : null,
    noneCorrect: unanswerable.length > 0 ? round(mean(unanswerable.map((r) => (r.memories === 0 ? 1 : 0)))) : null,
  };
}

/** Questions with evidence that engram's top k misses entirely and a baseline's top k hits, in result order. */
export function selectMisses(results: readonly QuestionResult[], k: number): QuestionResult[] {
  return results.filter(
    (r) =>
      r.evidence.length > 0 &&
      !hits(r.recalled.slice(0, k), r.evidence) &&
      (hits(r.baseline.slice(0, k), r.evidence) || hits(r.dense.slice(0, k), r.evidence)),
  );
}

export interface SummaryOptions {
  readonly k: number;
  readonly tokenBudget: number;
  /** Per user, the source turn ids of every stored memory (any status). */
  readonly sources: ReadonlyMap<string, ReadonlySet<string>>;
  /** The dense baseline's embedder (modelId). */
  readonly denseModel: string;
}

/** The report over every question's result. */
export function summarise(results: readonly QuestionResult[], { k, tokenBudget, sources, denseModel }: SummaryOptions): EvalReport {
  const all = group(results, k, sources);
  const answerable = results.filter((r) => r.evidence.length > 0);
  const unanswerable = results.filter((r) => r.evidence.length === 0);
  const byCategory: Record<string, CategoryReport> = {};
  for (const category of [...new Set(results.map((r) => r.category))].sort()) {
    byCategory[category] = group(
      results.filter((r) => r.category === category),
      k,
      sources,
    );
  }
  const byLanguage: Partial<Record<Language, GroupReport>> = {};
  for (const language of ['en', 'zh'] as const) {
    const of = results.filter((r) => questionLanguage(r.question) === language);
    if (of.length > 0) byLanguage[language] = group(of, k, sources);
  }
  const coverage = evidenceCoverage(answerable, sources);
  const pinnedOnly = answerable.filter((r) => hits(r.pinned, r.evidence) && !hits(r.recalled.slice(0, k), r.evidence));
  const latencies = results.map((r) => r.latencyMs);
  const used = results.map((r) => r.tokens / tokenBudget);
  return {
    questions: results.length,
    k,
    ...orZero(all),
    noneQuestions: unanswerable.length,
    noneCorrect: all.noneCorrect,
    noneCorrectStrict: unanswerable.length > 0 ? round(mean(unanswerable.map((r) => (r.memories + r.facts === 0 ? 1 : 0)))) : null,
    pinnedEvidence: all.pinnedEvidence ?? 0,
    pinnedEvidenceOnly: round(answerable.length > 0 ? pinnedOnly.length / answerable.length : 0),
    coverage: roundOrNull(coverage.share),
    evidenceTurns: coverage.evidenceTurns,
    coveredEvidenceTurns: coverage.covered,
    tokenBudget,
    budgetUsed: { mean: round(mean(used)), max: round(used.length ? Math.max(...used) : 0) },
    byCategory,
    byLanguage,
    latencyMs: {
      p50: round(percentile(latencies, 50), 2),
      p95: round(percentile(latencies, 95), 2),
      p99: round(percentile(latencies, 99), 2),
    },
    baseline: orZero(all.baseline),
    dense: { ...orZero(all.dense), model: denseModel },
    misses: selectMisses(results, k).map((r) => r.questionId),
  };
}
