import { INestApplication } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { Equals, IsArray, IsISO8601, IsNotEmpty, IsString, Matches, MaxLength, validateSync } from 'class-validator';
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@engram/config';
import { tokenize } from '@engram/domain';
import { createEmbedder } from '@engram/embedding';
import { Embedder, FactStore } from '@engram/ports';
import { startApp } from '../bootstrap';
import { validationExceptionFactory } from '../http/http-exception.filter';
import { IngestService } from '../http/ingest.service';
import type { RecallDto, RecallResponse } from '../http/recall.dto';
import { RecallService } from '../http/recall.service';
import { DEFAULT_TENANT } from '../http/tenancy';
import { ID_MESSAGE, ID_PATTERN } from '../http/turns.dto';
import type { PostTurnsDto } from '../http/turns.dto';
import { ForgettingService } from '../pipeline/forgetting.job';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import type { CliModules } from './cli-modules';
import { LineError, parseTurnLines, toRequests, TurnLineDto } from './turn-lines';

/*
 * `engram eval`: how well does recall bring back the turns that answer a question?
 *
 * A dataset is JSON lines of turns (as for `engram ingest`) and questions, each naming the turn ids
 * that state its answer. Every turn is ingested, the read side is drained, every question goes
 * through the recall API (with `now` = askedAt), and the source turn ids of the ranked memories that
 * came back are compared with the evidence. Two baselines over the raw turns run on the same
 * questions: plain BM25, and cosine over the configured embedder's vectors. Evidence coverage (how
 * much of the evidence any stored memory points at) tells a ranking miss from an extraction miss.
 */

// ---------------------------------------------------------------------------------------------
// Dataset
// ---------------------------------------------------------------------------------------------

/** One question line: `{"type":"question","userId","questionId","question","evidenceTurnIds":[...],"askedAt","category"}`. */
export class QuestionLineDto {
  @Equals('question') type!: 'question';
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` }) userId!: string;
  @IsString() @Matches(ID_PATTERN, { message: `questionId ${ID_MESSAGE}` }) questionId!: string;
  @IsString() @IsNotEmpty() @MaxLength(4000) question!: string;
  @IsArray()
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, message: `evidenceTurnIds ${ID_MESSAGE}` })
  evidenceTurnIds!: string[];
  @IsISO8601({ strict: true, strictSeparator: true }) askedAt!: string;
  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,63}$/, { message: 'category must be a lowercase slug (letters, digits, -)' })
  category!: string;
}

export interface EvalDataset {
  readonly turns: TurnLineDto[];
  readonly questions: QuestionLineDto[];
}

/**
 * Parses and validates a whole dataset; any bad line (not JSON, unknown type, invalid fields, a
 * repeated id, evidence that names no turn of that user or comes after the question) is a
 * LineError naming its line.
 */
export function parseEvalDataset(content: string): EvalDataset {
  const turns = parseTurnLines(content, (type) => type === 'turn' || type === 'question');
  const questions: QuestionLineDto[] = [];
  const turnLine = new Map<string, { line: number; occurredAt: number }>(); // `${userId}\u0000${turnId}`
  const questionLine = new Map<string, number>();
  let nextTurn = 0;
  content.split(/\r?\n/).forEach((text, index) => {
    const line = index + 1;
    if (text.trim() === '') return;
    const value = JSON.parse(text) as { type: unknown }; // parseTurnLines has vetted every line's JSON and type
    if (value.type === 'turn') {
      const turn = turns[nextTurn++];
      const key = `${turn.userId}\u0000${turn.turnId}`;
      const earlier = turnLine.get(key);
      if (earlier)
        throw new LineError(
          line,
          `turnId ${JSON.stringify(turn.turnId)} of user ${JSON.stringify(turn.userId)} repeats line ${earlier.line}`,
        );
      turnLine.set(key, { line, occurredAt: Date.parse(turn.occurredAt) });
      return;
    }
    const dto = plainToInstance(QuestionLineDto, value);
    const errors = validateSync(dto, { whitelist: true });
    if (errors.length > 0) {
      const response = validationExceptionFactory(errors).getResponse() as { message: string[] };
      throw new LineError(line, response.message.join('; '));
    }
    const earlier = questionLine.get(dto.questionId);
    if (earlier !== undefined) throw new LineError(line, `questionId ${JSON.stringify(dto.questionId)} repeats line ${earlier}`);
    questionLine.set(dto.questionId, line);
    questions.push(dto);
  });
  // Evidence may name turns further down the file, so it is checked once every turn is known.
  for (const question of questions) {
    const line = questionLine.get(question.questionId)!;
    if (new Set(question.evidenceTurnIds).size !== question.evidenceTurnIds.length)
      throw new LineError(line, 'evidenceTurnIds repeat an id');
    for (const turnId of question.evidenceTurnIds) {
      const turn = turnLine.get(`${question.userId}\u0000${turnId}`);
      if (!turn)
        throw new LineError(line, `evidence turn ${JSON.stringify(turnId)} is not a turn of user ${JSON.stringify(question.userId)}`);
      if (turn.occurredAt > Date.parse(question.askedAt)) {
        throw new LineError(line, `askedAt is before evidence turn ${JSON.stringify(turnId)} (line ${turn.line})`);
      }
    }
  }
  return { turns, questions };
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

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

/** Plain Okapi BM25 (k1 1.2, b 0.75) over one user's raw turns: the lexical baseline engram has to beat. */
export class Bm25Index {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    docs: readonly { id: string; text: string }[],
    private readonly terms: (text: string) => string[] = tokenize,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = docs.map(({ id, text }) => {
      const tf = new Map<string, number>();
      const words = terms(text);
      for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
      for (const word of tf.keys()) this.df.set(word, (this.df.get(word) ?? 0) + 1);
      return { id, tf, length: words.length };
    });
    this.avgLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** Documents with a positive score, best first (ties in document order). */
  search(query: string): { id: string; score: number }[] {
    const n = this.docs.length;
    const queryTerms = [...new Set(this.terms(query))];
    const scored = this.docs.map((doc, index) => {
      let score = 0;
      for (const term of queryTerms) {
        const tf = doc.tf.get(term) ?? 0;
        if (tf === 0) continue;
        const df = this.df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * doc.length) / (this.avgLength || 1)));
      }
      return { id: doc.id, score, index };
    });
    return scored
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map(({ id, score }) => ({ id, score }));
  }
}

/**
 * The dense baseline: every passage ranked by cosine similarity to the query vector, best first
 * (ties in passage order). Cosine rather than a bare dot product, so a server whose vectors are not
 * unit length is ranked the same way; a zero vector scores 0.
 */
export function denseRanking(
  query: readonly number[],
  passages: readonly { id: string; vector: readonly number[] }[],
): { id: string; score: number }[] {
  const norm = (v: readonly number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  const queryNorm = norm(query);
  return passages
    .map(({ id, vector }, index) => {
      const length = norm(vector) * queryNorm;
      let dot = 0;
      for (let i = 0; i < Math.min(vector.length, query.length); i++) dot += vector[i] * query[i];
      return { id, score: length === 0 ? 0 : dot / length, index };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ id, score }) => ({ id, score }));
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

// ---------------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------------

/** What the eval needs of an engram: the embedded one in-process, or a running one over HTTP. */
export interface EvalEngine {
  ingest(request: PostTurnsDto): Promise<void>;
  /** Events accepted but not yet visible to recall. */
  pending(): Promise<number>;
  recall(body: RecallDto): Promise<RecallResponse>;
  /** The source turn ids of every memory stored for the user, whatever its status (evidence coverage). */
  memorySourceTurnIds(userId: string): Promise<string[]>;
  /**
   * One forgetting sweep, as a deployment runs within the hour of ingest (the dataset is a backfill:
   * what expires after a week of world time expires now). A running engram sweeps on its own schedule.
   */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export interface EvalOptions {
  readonly dataset: string;
  readonly k: number;
  readonly url?: string;
  readonly apiKey?: string;
  readonly json: boolean;
  /** Also print the questions engram misses and a baseline finds. */
  readonly misses?: boolean;
  /** Write every question's result (its ranked turn ids, the baselines', what engram returned) to this file, one JSON line each. */
  readonly dump?: string;
  /** Where the report goes (default: stdout, one console.log per line). */
  readonly print?: (line: string) => void;
  /** Progress bars on stderr (default true; they draw only on a TTY). */
  readonly progress?: boolean;
  /** Give up when the pipeline backlog has not moved for this long (default 120 s). */
  readonly stallTimeoutMs?: number;
}

export interface EvalRun {
  readonly report: EvalReport;
  readonly results: readonly QuestionResult[];
}

/** Memory contents kept per question for `--misses`. */
const RETURNED_SHOWN = 3;

/** Ingests the dataset, drains the pipeline, asks every question, compares with BM25 and dense retrieval, reports. */
export async function runEval(options: EvalOptions, startEmbedded: () => Promise<EvalEngine>): Promise<EvalRun> {
  if (!Number.isInteger(options.k) || options.k < 1 || options.k > 50) throw new InvalidArgumentError('k must be an integer from 1 to 50');
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const dataset = parseEvalDataset(fs.readFileSync(options.dataset, 'utf8'));
  const print = options.print ?? ((line: string) => console.log(line));
  const bars = options.progress ?? true;
  const depth = rankingDepth(options.k);

  // The baselines first: an unreachable embeddings server stops the run before anything is ingested.
  const embedder = await createEmbedder(config);
  const baselines = await baselineRankers(dataset, embedder, config.ENGRAM_EMBEDDINGS_BATCH_SIZE, bars);

  const engine = options.url ? remoteEngine(options.url, options.apiKey ?? process.env.ENGRAM_API_KEY) : await startEmbedded();
  const results: QuestionResult[] = [];
  const sources = new Map<string, Set<string>>();
  try {
    const ingestBar = progressBar(bars, 'ingest  ', dataset.turns.length);
    for (const request of toRequests(dataset.turns, config.ENGRAM_MAX_TURNS_PER_REQUEST)) {
      await engine.ingest(request);
      ingestBar.increment(request.turns.length);
    }
    ingestBar.stop();
    await drain(engine, bars, options.stallTimeoutMs ?? 120_000);
    await engine.sweep();
    await drain(engine, bars, options.stallTimeoutMs ?? 120_000);

    for (const userId of new Set(dataset.questions.map((q) => q.userId)))
      sources.set(userId, new Set(await engine.memorySourceTurnIds(userId)));

    const askBar = progressBar(bars, 'recall  ', dataset.questions.length);
    for (const [index, question] of dataset.questions.entries()) {
      const started = performance.now();
      const response = await engine.recall({ userId: question.userId, query: question.question, k: depth, now: question.askedAt });
      const latencyMs = performance.now() - started;
      results.push({
        questionId: question.questionId,
        userId: question.userId,
        category: question.category,
        question: question.question,
        evidence: question.evidenceTurnIds,
        recalled: rankedTurnIds(response, depth),
        pinned: pinnedTurnIds(response),
        baseline: baselines.bm25(question).slice(0, depth),
        dense: baselines.dense(question, index).slice(0, depth),
        returned: response.memories.slice(0, RETURNED_SHOWN).map((m) => m.content),
        facts: response.facts.length,
        memories: response.memories.length,
        tokens: response.tokens,
        latencyMs,
      });
      askBar.increment();
    }
    askBar.stop();
  } finally {
    await engine.close();
  }

  const report = summarise(results, { k: options.k, tokenBudget: config.ENGRAM_TOKEN_BUDGET, sources, denseModel: embedder.modelId });
  print(formatReport(report));
  if (options.misses) {
    const texts = new Map(dataset.turns.map((t) => [`${t.userId}\u0000${t.turnId}`, t.text]));
    const lines = formatMisses(results, options.k, (userId, turnId) => texts.get(`${userId}\u0000${turnId}`));
    print('');
    print(`misses at k = ${options.k} (${lines.length}): question, evidence, where BM25 and dense ranked it, what engram returned instead`);
    for (const line of lines) print(line);
  }
  if (options.dump) fs.writeFileSync(options.dump, results.map((r) => JSON.stringify(r)).join('\n') + '\n');
  if (options.json) print(JSON.stringify(report));
  return { report, results };
}

/** The only two places the eval embeds: turns as passages, questions as queries (asymmetric models). */
const embedPassages = (embedder: Embedder, texts: readonly string[]): Promise<number[][]> => embedder.embed(texts, 'passage');
const embedQueries = (embedder: Embedder, texts: readonly string[]): Promise<number[][]> => embedder.embed(texts, 'query');

interface BaselineRankers {
  /** BM25 over the user's turns said before the question. */
  bm25(question: QuestionLineDto): string[];
  /** Cosine over the same turns' vectors; `index` is the question's position in the dataset. */
  dense(question: QuestionLineDto, index: number): string[];
}

/**
 * Both baselines over the raw turns (speaker + text), per user, turns said before the question
 * only. Every turn and question is embedded once, in batches, before the run.
 */
async function baselineRankers(dataset: EvalDataset, embedder: Embedder, batchSize: number, bars: boolean): Promise<BaselineRankers> {
  const bar = progressBar(bars, 'embed   ', dataset.turns.length + dataset.questions.length);
  const inBatches = async (texts: readonly string[], embed: (batch: readonly string[]) => Promise<number[][]>) => {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize);
      vectors.push(...(await embed(batch)));
      bar.increment(batch.length);
    }
    return vectors;
  };
  const turnVectors = await inBatches(dataset.turns.map(turnDocument), (batch) => embedPassages(embedder, batch));
  const questionVectors = await inBatches(
    dataset.questions.map((q) => q.question),
    (batch) => embedQueries(embedder, batch),
  );
  bar.stop();

  const byUser = new Map<string, { turn: TurnLineDto; vector: number[] }[]>();
  dataset.turns.forEach((turn, i) => {
    const turns = byUser.get(turn.userId) ?? [];
    turns.push({ turn, vector: turnVectors[i] });
    byUser.set(turn.userId, turns);
  });
  const visible = (question: QuestionLineDto) => {
    const asked = Date.parse(question.askedAt);
    return (byUser.get(question.userId) ?? []).filter(({ turn }) => Date.parse(turn.occurredAt) <= asked);
  };
  const indexes = new Map<string, Bm25Index>();
  return {
    bm25: (question) => {
      const turns = visible(question);
      const key = `${question.userId}\u0000${turns.length}`;
      let index = indexes.get(key);
      if (!index) {
        index = new Bm25Index(turns.map(({ turn }) => ({ id: turn.turnId, text: turnDocument(turn) })));
        indexes.set(key, index);
      }
      return index.search(question.question).map((hit) => hit.id);
    },
    dense: (question, index) =>
      denseRanking(
        questionVectors[index],
        visible(question).map(({ turn, vector }) => ({ id: turn.turnId, vector })),
      ).map((hit) => hit.id),
  };
}

async function drain(engine: EvalEngine, bars: boolean, stallTimeoutMs: number): Promise<void> {
  let pending = await engine.pending();
  const total = Math.max(1, pending);
  const bar = progressBar(bars, 'pipeline', total);
  let lastChange = Date.now();
  while (pending > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await engine.pending();
    if (now !== pending) lastChange = Date.now();
    else if (Date.now() - lastChange > stallTimeoutMs)
      throw new Error(`the pipeline has been stuck at ${now} pending events for ${stallTimeoutMs} ms`);
    pending = now;
    bar.update(Math.max(0, total - pending));
  }
  bar.update(total);
  bar.stop();
}

function progressBar(enabled: boolean, label: string, total: number): SingleBar {
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: process.stderr,
      noTTYOutput: false,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  if (enabled) bar.start(total, 0);
  else bar.setTotal(total); // never started: updates are no-ops, nothing is drawn
  return bar;
}

/** A running engram over HTTP (`--url`). */
export function remoteEngine(url: string, apiKey?: string): EvalEngine {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(new URL(route, url), {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    ingest: async (request) => {
      await call('POST', '/v1/turns', request);
    },
    pending: async () => (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending,
    recall: (body) => call<RecallResponse>('POST', '/v1/recall', body),
    memorySourceTurnIds: async (userId) => {
      const { memories } = await call<{ memories: { sourceTurnIds: string[] }[] }>(
        'GET',
        `/v1/users/${encodeURIComponent(userId)}/memories?status=all`,
      );
      return memories.flatMap((memory) => memory.sourceTurnIds);
    },
    sweep: async () => undefined,
    close: async () => undefined,
  };
}

/** The embedded engram in a fresh temporary data directory, removed on close. */
export function embeddedEngine(modules: CliModules, env: Record<string, string | undefined> = process.env): () => Promise<EvalEngine> {
  return async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-'));
    let app: INestApplication;
    try {
      const config = loadConfig({ ...env, LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
      app = await startApp(modules.server(config), { http: false, stages: true });
    } catch (error) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
    const ingest = app.get(IngestService);
    const recall = app.get(RecallService);
    const progress = app.get(PipelineProgress);
    const facts = app.get<FactStore>(FactStore);
    const forgetting = app.get(ForgettingService);
    return {
      ingest: async (request) => {
        await ingest.ingest(DEFAULT_TENANT, request);
      },
      pending: () => progress.pending(),
      recall: (body) => recall.recall(DEFAULT_TENANT, body),
      memorySourceTurnIds: async (userId) =>
        (await facts.list({ tenantId: DEFAULT_TENANT, userId })).flatMap((memory) => memory.sourceTurnIds),
      sweep: async () => {
        await forgetting.run({ wait: true });
      },
      close: async () => {
        try {
          await app.close();
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  };
}

function kOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new InvalidArgumentError('k must be an integer from 1 to 50');
  return n;
}

/** Adds `engram eval --dataset <file> [--k 10] [--json] [--misses] [--dump <file>] [--url <url>] [--api-key <key>]`. */
export function registerEvalCommand(program: Command, modules: CliModules): Command {
  return program
    .command('eval')
    .description('measure recall on a dataset of turns and questions with known evidence, against BM25 and dense baselines')
    .requiredOption('--dataset <file>', 'JSON lines: turn lines (as for ingest) and question lines')
    .option(
      '--k <k>',
      'headline evidence cut-off (recall@5 and @10 are always reported; recall is asked for max(k, 10) memories) (1-50)',
      kOption,
      10,
    )
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--misses', 'list the questions engram misses in its top k that a baseline finds in its top k')
    .option(
      '--dump <file>',
      "write every question's result (engram's and the baselines' ranked turn ids, what engram returned) as JSON lines",
    )
    .option('--url <url>', 'evaluate a running engram (its data is added to) instead of a fresh embedded one')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(
      async (options: { dataset: string; k: number; json?: boolean; misses?: boolean; dump?: string; url?: string; apiKey?: string }) => {
        await runEval(
          {
            dataset: options.dataset,
            k: options.k,
            json: options.json === true,
            misses: options.misses === true,
            dump: options.dump,
            url: options.url,
            apiKey: options.apiKey,
          },
          embeddedEngine(modules),
        );
      },
    );
}
