/**
 * `engram eval`: how well does recall bring back the turns that answer a question?
 *
 * A dataset is JSON lines of turns (as for `engram ingest`) and questions, each naming the turn ids
 * that state its answer. Every turn is ingested, the read side is drained, every question goes
 * through the recall API (with `now` = askedAt), and the source turn ids of the ranked memories that
 * came back are compared with the evidence. Two baselines over the raw turns run on the same
 * questions: plain BM25, and cosine over the configured embedder's vectors. Evidence coverage (how
 * much of the evidence any stored memory points at) tells a ranking miss from an extraction miss.
 *
 * One file per part: dataset.ts (the JSON-lines format), baselines.ts (the dense baseline over the raw
 * turns; the BM25 one is the domain's `Bm25Index`), metrics.ts (scores and the report's shape),
 * summary.ts, format.ts (the text report), runner.ts, engines.ts (embedded or over HTTP), command.ts
 * (the CLI command).
 */

export { parseEvalDataset } from './dataset';
export {
  type EvalReport,
  evidenceCoverage,
  percentile,
  pinnedTurnIds,
  questionLanguage,
  type QuestionResult,
  rankedTurnIds,
  rankingDepth,
  scoreRanking,
  turnDocument,
} from './metrics';
export { denseRanking } from './baselines';
/** The BM25 baseline's index: the domain's one BM25. */
export { Bm25Index } from '@engram/domain';
export { selectMisses, summarise } from './summary';
export { formatMisses } from './format';
export { runEval } from './runner';
export { embeddedEngine } from './engines';
export { registerEvalCommand } from './command';
