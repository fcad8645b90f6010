import type { RecallResponse } from '@engram/services/recall/recall.dto';
import { TurnLineDto } from '../turn-lines';

/** Recall is reported at these cut-offs in every run; `--k` picks the headline one (MRR, hit rate, the floor). */
export const REPORTED_CUTOFFS = [5, 10] as const;

/** How deep every ranking is kept (and how many memories recall is asked for): the headline k or 10. */
export const rankingDepth = (k: number): number => Math.max(k, ...REPORTED_CUTOFFS);

const distinct = (ids: Iterable<string>): string[] => [...new Set(ids)];

/**
 * Source turn ids of the ranked memories recall returned, in rank order, without repeats, the
 * first `k`. Pinned facts are left out: they come back whatever the query, so they would take a
 * slot of every answer (see pinnedTurnIds).
 */
export function rankedTurnIds(response: Pick<RecallResponse, 'memories'>, k: number): string[] {
  return distinct(response.memories.flatMap((memory) => memory.sourceTurnIds)).slice(0, k);
}

/** Source turn ids of the pinned facts recall returned, without repeats. */
export function pinnedTurnIds(response: Pick<RecallResponse, 'facts'>): string[] {
  return distinct(response.facts.flatMap((fact) => fact.sourceTurnIds));
}

export type Language = 'en' | 'zh';

/** A question is `zh` when it holds a Han character, else `en`. */
export function questionLanguage(text: string): Language {
  return /\p{Script=Han}/u.test(text) ? 'zh' : 'en';
}

/** What both baselines see of a turn: the speaker's name, when it has one, then the text. */
export function turnDocument(turn: Pick<TurnLineDto, 'speaker' | 'text'>): string {
  return turn.speaker ? `${turn.speaker}: ${turn.text}` : turn.text;
}

export interface RankScore {
  /** Share of the evidence among `ranked` (already cut at k). */
  readonly recall: number;
  /** 1 / rank of the first evidence id in `ranked`, 0 if none is there. */
  readonly reciprocalRank: number;
  readonly hit: boolean;
}

/** Scores one ranked list (cut at k) against one question's evidence (non-empty). */
export function scoreRanking(ranked: readonly string[], evidence: readonly string[]): RankScore {
  const wanted = new Set(evidence);
  const found = ranked.filter((id) => wanted.has(id)).length;
  const first = ranked.findIndex((id) => wanted.has(id));
  return { recall: wanted.size === 0 ? 0 : found / wanted.size, reciprocalRank: first < 0 ? 0 : 1 / (first + 1), hit: first >= 0 };
}

/** Nearest-rank percentile (p in (0, 100]) of a list of numbers; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

export interface EvidenceCoverage {
  /** Distinct evidence turns of the questions (a turn id is per user). */
  readonly evidenceTurns: number;
  /** How many of them some stored memory names in its sourceTurnIds. */
  readonly covered: number;
  /** covered / evidenceTurns; null without evidence. */
  readonly share: number | null;
}

/**
 * How much of the evidence made it into memory at all: of the questions' distinct evidence turns,
 * the share that a stored memory (any status) names as a source. A turn no memory points at cannot
 * be recalled, whatever the ranking does.
 *
 * `sources`: per user, the source turn ids of every stored memory.
 */
export function evidenceCoverage(
  questions: readonly { readonly userId: string; readonly evidence: readonly string[] }[],
  sources: ReadonlyMap<string, ReadonlySet<string>>,
): EvidenceCoverage {
  const evidence = new Map<string, { userId: string; turnId: string }>();
  for (const q of questions) for (const turnId of q.evidence) evidence.set(`${q.userId}\u0000${turnId}`, { userId: q.userId, turnId });
  let covered = 0;
  for (const { userId, turnId } of evidence.values()) if (sources.get(userId)?.has(turnId)) covered++;
  return { evidenceTurns: evidence.size, covered, share: evidence.size === 0 ? null : covered / evidence.size };
}

/** What one question got, from engram and from the two baselines. */
export interface QuestionResult {
  readonly questionId: string;
  readonly userId: string;
  readonly category: string;
  readonly question: string;
  readonly evidence: readonly string[];
  /** Source turn ids of the ranked memories, rank order, first rankingDepth(k). */
  readonly recalled: readonly string[];
  /** Source turn ids of the pinned facts (scored apart: they come back for every query). */
  readonly pinned: readonly string[];
  /** BM25 baseline turn ids, rank order, first rankingDepth(k). */
  readonly baseline: readonly string[];
  /** Dense baseline turn ids, rank order, first rankingDepth(k). */
  readonly dense: readonly string[];
  /** Content of the first ranked memories (what `--misses` shows engram returned). */
  readonly returned: readonly string[];
  /** Facts and memories recall returned (0 + 0 is the right answer to a `none` question). */
  readonly facts: number;
  readonly memories: number;
  readonly tokens: number;
  readonly latencyMs: number;
}

/** Recall at the headline k and at 5 and 10, MRR and hit rate at k. */
export interface Scores<N extends number | null = number> {
  readonly recallAtK: N;
  readonly recallAt5: N;
  readonly recallAt10: N;
  readonly mrr: N;
  readonly hitRateAtK: N;
}

/** One category's, or one language's, figures. Scores are over its questions with evidence (null when none has). */
export interface GroupReport extends Scores<number | null> {
  readonly questions: number;
  /** BM25 recall@k (also baseline.recallAtK; kept for readers of older reports). */
  readonly baselineRecallAtK: number | null;
  readonly baseline: Scores<number | null>;
  readonly dense: Scores<number | null>;
  /** Share of the group's distinct evidence turns that some stored memory points at. */
  readonly coverage: number | null;
  /** Share of the group's questions with evidence whose evidence a pinned fact points at. */
  readonly pinnedEvidence: number | null;
  /** Over the group's questions without evidence; null when it has none. */
  readonly noneCorrect: number | null;
}

export type CategoryReport = GroupReport;

export interface EvalReport extends Scores {
  readonly questions: number;
  readonly k: number;
  /** Questions without evidence, and the share of them for which recall returned no memory. */
  readonly noneQuestions: number;
  readonly noneCorrect: number | null;
  /** Same, but also no pinned fact (pinned profile facts come back for every query by design). */
  readonly noneCorrectStrict: number | null;
  /** Share of questions with evidence whose evidence a pinned fact points at. */
  readonly pinnedEvidence: number;
  /** Of those, the share (of all questions with evidence) whose evidence is not also in the top k memories. */
  readonly pinnedEvidenceOnly: number;
  /** Share of distinct evidence turns that some stored memory (any status) points at; null without evidence. */
  readonly coverage: number | null;
  readonly evidenceTurns: number;
  readonly coveredEvidenceTurns: number;
  /** Context tokens / configured budget, mean and max over all questions (recall asked for rankingDepth(k) memories). */
  readonly tokenBudget: number;
  readonly budgetUsed: { readonly mean: number; readonly max: number };
  readonly byCategory: Readonly<Record<string, CategoryReport>>;
  readonly byLanguage: Readonly<Partial<Record<Language, GroupReport>>>;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number };
  /** BM25 over speaker + text of the raw turns. */
  readonly baseline: Scores;
  /** Cosine over the configured embedder's vectors of the raw turns. */
  readonly dense: Scores & { readonly model: string };
  /** Question ids engram misses in its top k (no evidence) that a baseline finds in its top k. */
  readonly misses: readonly string[];
}
