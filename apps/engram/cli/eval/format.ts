import { type EvalReport, type GroupReport, type QuestionResult, rankingDepth, REPORTED_CUTOFFS, type Scores } from './metrics';
import { selectMisses } from './summary';

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null) => (v === null ? '—' : v.toFixed(3));

function table(header: string[], body: string[][], footer?: string[]): string[] {
  const rows = footer ? [...body, footer] : body;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line), ...(footer ? [rule, line(footer)] : [])];
}

/** The human-readable report. */
export function formatReport(report: EvalReport): string {
  const k = report.k;
  const extraK = !(REPORTED_CUTOFFS as readonly number[]).includes(k);
  const header = (first: string) => [
    first,
    'n',
    'R@5',
    'R@10',
    ...(extraK ? [`R@${k}`] : []),
    `MRR@${k}`,
    'BM25 R@5',
    'BM25 R@10',
    'dense R@5',
    'dense R@10',
    'coverage',
    'pinned',
    'none ok',
  ];
  const cells = (name: string, g: GroupReport) => [
    name,
    String(g.questions),
    pct(g.recallAt5),
    pct(g.recallAt10),
    ...(extraK ? [pct(g.recallAtK)] : []),
    num(g.mrr),
    pct(g.baseline.recallAt5),
    pct(g.baseline.recallAt10),
    pct(g.dense.recallAt5),
    pct(g.dense.recallAt10),
    pct(g.coverage),
    pct(g.pinnedEvidence),
    pct(g.noneCorrect),
  ];
  const overall: GroupReport = {
    questions: report.questions,
    recallAtK: report.recallAtK,
    recallAt5: report.recallAt5,
    recallAt10: report.recallAt10,
    mrr: report.mrr,
    hitRateAtK: report.hitRateAtK,
    baselineRecallAtK: report.baseline.recallAtK,
    baseline: report.baseline,
    dense: report.dense,
    coverage: report.coverage,
    pinnedEvidence: report.pinnedEvidence,
    noneCorrect: report.noneCorrect,
  };
  const scores = (s: Scores) =>
    `recall@5 ${pct(s.recallAt5)}  recall@10 ${pct(s.recallAt10)}${extraK ? `  recall@${k} ${pct(s.recallAtK)}` : ''}  MRR@${k} ${num(s.mrr)}  hit-rate@${k} ${pct(s.hitRateAtK)}`;
  return [
    ...table(
      header('category'),
      Object.entries(report.byCategory).map(([name, c]) => cells(name, c)),
      cells('all', overall),
    ),
    '',
    ...table(
      header('language'),
      Object.entries(report.byLanguage).map(([name, g]) => cells(name, g!)),
    ),
    '',
    `engram    ${scores(report)}  (ranked memories only)`,
    `BM25      ${scores(report.baseline)}  (speaker + text of the raw turns)`,
    `dense     ${scores(report.dense)}  (cosine, ${report.dense.model} vectors of the raw turns)`,
    `coverage  ${report.coveredEvidenceTurns} of ${report.evidenceTurns} evidence turns (${pct(report.coverage)}) are a source of some stored memory`,
    `pinned    a pinned fact points at the evidence of ${pct(report.pinnedEvidence)} of questions (${pct(report.pinnedEvidenceOnly)} not also in the top ${k} memories)`,
    `misses    ${report.misses.length} questions with no evidence in engram's top ${k} that BM25 or dense finds in its top ${k} (--misses lists them)`,
    `none      ${report.noneQuestions} questions: no memory recalled ${pct(report.noneCorrect)}, nothing at all ${pct(report.noneCorrectStrict)}`,
    `context   ${pct(report.budgetUsed.mean)} of the ${report.tokenBudget}-token budget on average (max ${pct(report.budgetUsed.max)}), ${rankingDepth(k)} memories asked`,
    `latency   p50 ${report.latencyMs.p50} ms  p95 ${report.latencyMs.p95} ms  p99 ${report.latencyMs.p99} ms`,
  ].join('\n');
}

const clip = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return Array.from(flat).length <= max
    ? flat
    : `${Array.from(flat)
        .slice(0, max - 1)
        .join('')}…`;
};

/**
 * One line per question engram misses and a baseline finds: the question, its category, the
 * evidence turns' text, where each baseline ranked the first evidence turn, and what engram
 * returned instead (its first three memories).
 */
export function formatMisses(
  results: readonly QuestionResult[],
  k: number,
  turnText: (userId: string, turnId: string) => string | undefined,
): string[] {
  const rank = (ranked: readonly string[], evidence: readonly string[]) => {
    const at = ranked.slice(0, k).findIndex((id) => evidence.includes(id));
    return at < 0 ? '—' : `#${at + 1}`;
  };
  return selectMisses(results, k).map((r) => {
    const evidence = r.evidence.map((id) => `${id} "${clip(turnText(r.userId, id) ?? '', 60)}"`).join(' + ');
    const returned =
      r.returned.length === 0
        ? '(no memory)'
        : r.returned
            .slice(0, 3)
            .map((c) => `"${clip(c, 40)}"`)
            .join(' | ');
    return `${r.questionId} [${r.category}] ${clip(r.question, 70)}  evidence: ${evidence}  BM25 ${rank(r.baseline, r.evidence)} dense ${rank(r.dense, r.evidence)}  engram: ${returned}`;
  });
}
