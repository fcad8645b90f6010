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
import { startApp } from '../bootstrap';
import { validationExceptionFactory } from '../http/http-exception.filter';
import { IngestService } from '../http/ingest.service';
import type { RecallDto, RecallResponse } from '../http/recall.dto';
import { RecallService } from '../http/recall.service';
import { DEFAULT_TENANT } from '../http/tenancy';
import { ID_MESSAGE, ID_PATTERN } from '../http/turns.dto';
import type { PostTurnsDto } from '../http/turns.dto';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import type { CliModules } from './engram-cli';
import { LineError, parseTurnLines, toRequests, TurnLineDto } from './turn-lines';

/*
 * `engram eval`: how well does recall bring back the turns that answer a question?
 *
 * A dataset is JSON lines of turns (as for `engram ingest`) and questions, each naming the turn ids
 * that state its answer. Every turn is ingested, the read side is drained, every question goes
 * through the recall API (with `now` = askedAt), and the source turn ids of what came back are
 * compared with the evidence. A plain BM25 over the raw turns runs on the same questions as the
 * baseline to beat.
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
  @IsArray() @IsString({ each: true }) @Matches(ID_PATTERN, { each: true, message: `evidenceTurnIds ${ID_MESSAGE}` })
  evidenceTurnIds!: string[];
  @IsISO8601({ strict: true, strictSeparator: true }) askedAt!: string;
  @IsString() @Matches(/^[a-z][a-z0-9-]{0,63}$/, { message: 'category must be a lowercase slug (letters, digits, -)' })
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
      if (earlier) throw new LineError(line, `turnId ${JSON.stringify(turn.turnId)} of user ${JSON.stringify(turn.userId)} repeats line ${earlier.line}`);
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
    if (new Set(question.evidenceTurnIds).size !== question.evidenceTurnIds.length) throw new LineError(line, 'evidenceTurnIds repeat an id');
    for (const turnId of question.evidenceTurnIds) {
      const turn = turnLine.get(`${question.userId}\u0000${turnId}`);
      if (!turn) throw new LineError(line, `evidence turn ${JSON.stringify(turnId)} is not a turn of user ${JSON.stringify(question.userId)}`);
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

type Recalled = Pick<RecallResponse, 'facts' | 'memories'>;

/** Source turn ids of what recall returned, in rank order (facts, then memories), without repeats, the first `k`. */
export function recalledTurnIds(response: Recalled, k: number): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const item of [...response.facts, ...response.memories]) {
    for (const id of item.sourceTurnIds) {
      if (seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
    }
  }
  return ids.slice(0, k);
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

/** Plain Okapi BM25 (k1 1.2, b 0.75) over one user's raw turns: the baseline engram has to beat. */
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

/** What one question got, from engram and from the baseline. */
export interface QuestionResult {
  readonly questionId: string;
  readonly userId: string;
  readonly category: string;
  readonly question: string;
  readonly evidence: readonly string[];
  /** Source turn ids recalled, rank order, first k. */
  readonly recalled: readonly string[];
  /** Baseline turn ids, rank order, first k. */
  readonly baseline: readonly string[];
  /** Facts and memories recall returned (0 + 0 is the right answer to a `none` question). */
  readonly facts: number;
  readonly memories: number;
  readonly tokens: number;
  readonly latencyMs: number;
}

export interface CategoryReport {
  readonly questions: number;
  /** Over the category's questions that have evidence; null when none has. */
  readonly recallAtK: number | null;
  readonly mrr: number | null;
  readonly hitRateAtK: number | null;
  readonly baselineRecallAtK: number | null;
  /** Over the category's questions without evidence; null when it has none. */
  readonly noneCorrect: number | null;
}

export interface EvalReport {
  readonly questions: number;
  readonly k: number;
  /** Averages over the questions that have evidence. */
  readonly recallAtK: number;
  readonly mrr: number;
  readonly hitRateAtK: number;
  /** Questions without evidence, and the share of them for which recall returned no memory. */
  readonly noneQuestions: number;
  readonly noneCorrect: number | null;
  /** Same, but also no pinned fact (pinned profile facts come back for every query by design). */
  readonly noneCorrectStrict: number | null;
  /** Context tokens / configured budget, mean and max over all questions. */
  readonly tokenBudget: number;
  readonly budgetUsed: { readonly mean: number; readonly max: number };
  readonly byCategory: Readonly<Record<string, CategoryReport>>;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number };
  readonly baseline: { readonly recallAtK: number; readonly mrr: number; readonly hitRateAtK: number };
}

const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length);
const round = (value: number, digits = 4): number => Math.round(value * 10 ** digits) / 10 ** digits;
const roundOrNull = (value: number | null): number | null => (value === null ? null : round(value));

function aggregate(results: readonly QuestionResult[]) {
  const answerable = results.filter((r) => r.evidence.length > 0);
  const unanswerable = results.filter((r) => r.evidence.length === 0);
  const engram = answerable.map((r) => scoreRanking(r.recalled, r.evidence));
  const baseline = answerable.map((r) => scoreRanking(r.baseline, r.evidence));
  const some = answerable.length > 0;
  return {
    answerable: answerable.length,
    recallAtK: some ? mean(engram.map((s) => s.recall)) : null,
    mrr: some ? mean(engram.map((s) => s.reciprocalRank)) : null,
    hitRateAtK: some ? mean(engram.map((s) => (s.hit ? 1 : 0))) : null,
    baselineRecallAtK: some ? mean(baseline.map((s) => s.recall)) : null,
    baselineMrr: some ? mean(baseline.map((s) => s.reciprocalRank)) : null,
    baselineHitRateAtK: some ? mean(baseline.map((s) => (s.hit ? 1 : 0))) : null,
    unanswerable: unanswerable.length,
    noneCorrect: unanswerable.length > 0 ? mean(unanswerable.map((r) => (r.memories === 0 ? 1 : 0))) : null,
    noneCorrectStrict: unanswerable.length > 0 ? mean(unanswerable.map((r) => (r.memories + r.facts === 0 ? 1 : 0))) : null,
  };
}

/** The report over every question's result. */
export function summarise(results: readonly QuestionResult[], k: number, tokenBudget: number): EvalReport {
  const all = aggregate(results);
  const byCategory: Record<string, CategoryReport> = {};
  for (const category of [...new Set(results.map((r) => r.category))].sort()) {
    const of = results.filter((r) => r.category === category);
    const a = aggregate(of);
    byCategory[category] = {
      questions: of.length,
      recallAtK: roundOrNull(a.recallAtK),
      mrr: roundOrNull(a.mrr),
      hitRateAtK: roundOrNull(a.hitRateAtK),
      baselineRecallAtK: roundOrNull(a.baselineRecallAtK),
      noneCorrect: roundOrNull(a.noneCorrect),
    };
  }
  const latencies = results.map((r) => r.latencyMs);
  const used = results.map((r) => r.tokens / tokenBudget);
  return {
    questions: results.length,
    k,
    recallAtK: round(all.recallAtK ?? 0),
    mrr: round(all.mrr ?? 0),
    hitRateAtK: round(all.hitRateAtK ?? 0),
    noneQuestions: all.unanswerable,
    noneCorrect: roundOrNull(all.noneCorrect),
    noneCorrectStrict: roundOrNull(all.noneCorrectStrict),
    tokenBudget,
    budgetUsed: { mean: round(mean(used)), max: round(used.length ? Math.max(...used) : 0) },
    byCategory,
    latencyMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2), p99: round(percentile(latencies, 99), 2) },
    baseline: { recallAtK: round(all.baselineRecallAtK ?? 0), mrr: round(all.baselineMrr ?? 0), hitRateAtK: round(all.baselineHitRateAtK ?? 0) },
  };
}

/** The human-readable report. */
export function formatReport(report: EvalReport): string {
  const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
  const num = (v: number | null) => (v === null ? '—' : v.toFixed(3));
  const k = report.k;
  const header = ['category', 'n', `R@${k}`, 'MRR', `hit@${k}`, `BM25 R@${k}`, 'none ok'];
  const rows = Object.entries(report.byCategory).map(([name, c]) => [
    name, String(c.questions), pct(c.recallAtK), num(c.mrr), pct(c.hitRateAtK), pct(c.baselineRecallAtK), pct(c.noneCorrect),
  ]);
  rows.push([
    'all', String(report.questions), pct(report.recallAtK), num(report.mrr), pct(report.hitRateAtK), pct(report.baseline.recallAtK), pct(report.noneCorrect),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(0, -1).map(line),
    widths.map((w) => '-'.repeat(w)).join('  '),
    line(rows[rows.length - 1]),
    '',
    `engram   recall@${k} ${pct(report.recallAtK)}  MRR ${num(report.mrr)}  hit-rate@${k} ${pct(report.hitRateAtK)}`,
    `baseline recall@${k} ${pct(report.baseline.recallAtK)}  MRR ${num(report.baseline.mrr)}  hit-rate@${k} ${pct(report.baseline.hitRateAtK)}  (BM25 over raw turns)`,
    `none     ${report.noneQuestions} questions: no memory recalled ${pct(report.noneCorrect)}, nothing at all ${pct(report.noneCorrectStrict)}`,
    `context  ${pct(report.budgetUsed.mean)} of the ${report.tokenBudget}-token budget on average (max ${pct(report.budgetUsed.max)})`,
    `latency  p50 ${report.latencyMs.p50} ms  p95 ${report.latencyMs.p95} ms  p99 ${report.latencyMs.p99} ms`,
  ].join('\n');
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
  close(): Promise<void>;
}

export interface EvalOptions {
  readonly dataset: string;
  readonly k: number;
  readonly url?: string;
  readonly apiKey?: string;
  readonly json: boolean;
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

/** Ingests the dataset, drains the pipeline, asks every question, compares with BM25, reports. */
export async function runEval(options: EvalOptions, startEmbedded: () => Promise<EvalEngine>): Promise<EvalRun> {
  if (!Number.isInteger(options.k) || options.k < 1 || options.k > 50) throw new InvalidArgumentError('k must be an integer from 1 to 50');
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const dataset = parseEvalDataset(fs.readFileSync(options.dataset, 'utf8'));
  const print = options.print ?? ((line: string) => console.log(line));
  const bars = options.progress ?? true;
  const baseline = baselineIndexes(dataset.turns);

  const engine = options.url ? remoteEngine(options.url, options.apiKey ?? process.env.ENGRAM_API_KEY) : await startEmbedded();
  const results: QuestionResult[] = [];
  try {
    const ingestBar = progressBar(bars, 'ingest  ', dataset.turns.length);
    for (const request of toRequests(dataset.turns, config.ENGRAM_MAX_TURNS_PER_REQUEST)) {
      await engine.ingest(request);
      ingestBar.increment(request.turns.length);
    }
    ingestBar.stop();
    await drain(engine, bars, options.stallTimeoutMs ?? 120_000);

    const askBar = progressBar(bars, 'recall  ', dataset.questions.length);
    for (const question of dataset.questions) {
      const started = performance.now();
      const response = await engine.recall({ userId: question.userId, query: question.question, k: options.k, now: question.askedAt });
      const latencyMs = performance.now() - started;
      results.push({
        questionId: question.questionId,
        userId: question.userId,
        category: question.category,
        question: question.question,
        evidence: question.evidenceTurnIds,
        recalled: recalledTurnIds(response, options.k),
        baseline: baseline(question).slice(0, options.k),
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

  const report = summarise(results, options.k, config.ENGRAM_TOKEN_BUDGET);
  print(formatReport(report));
  if (options.json) print(JSON.stringify(report));
  return { report, results };
}

/** Per-user BM25 over the raw turns said before the question. */
function baselineIndexes(turns: readonly TurnLineDto[]): (question: QuestionLineDto) => string[] {
  const byUser = new Map<string, TurnLineDto[]>();
  for (const turn of turns) byUser.set(turn.userId, [...(byUser.get(turn.userId) ?? []), turn]);
  const cache = new Map<string, Bm25Index>();
  return (question) => {
    const asked = Date.parse(question.askedAt);
    const visible = (byUser.get(question.userId) ?? []).filter((t) => Date.parse(t.occurredAt) <= asked);
    const key = `${question.userId}\u0000${visible.length}`;
    let index = cache.get(key);
    if (!index) {
      index = new Bm25Index(visible.map((t) => ({ id: t.turnId, text: t.text })));
      cache.set(key, index);
    }
    return index.search(question.question).map((hit) => hit.id);
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
    else if (Date.now() - lastChange > stallTimeoutMs) throw new Error(`the pipeline has been stuck at ${now} pending events for ${stallTimeoutMs} ms`);
    pending = now;
    bar.update(Math.max(0, total - pending));
  }
  bar.update(total);
  bar.stop();
}

function progressBar(enabled: boolean, label: string, total: number): SingleBar {
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`, stream: process.stderr, noTTYOutput: false, hideCursor: true },
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
    return {
      ingest: async (request) => {
        await ingest.ingest(DEFAULT_TENANT, request);
      },
      pending: () => progress.pending(),
      recall: (body) => recall.recall(DEFAULT_TENANT, body),
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

/** Adds `engram eval --dataset <file> [--k 10] [--json] [--url <url>] [--api-key <key>]`. */
export function registerEvalCommand(program: Command, modules: CliModules): Command {
  return program
    .command('eval')
    .description('measure recall on a dataset of turns and questions with known evidence, against a BM25 baseline')
    .requiredOption('--dataset <file>', 'JSON lines: turn lines (as for ingest) and question lines')
    .option('--k <k>', 'evidence cut-off, and memories asked of recall (1-50)', kOption, 10)
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--url <url>', 'evaluate a running engram (its data is added to) instead of a fresh embedded one')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (options: { dataset: string; k: number; json?: boolean; url?: string; apiKey?: string }) => {
      await runEval({ dataset: options.dataset, k: options.k, json: options.json === true, url: options.url, apiKey: options.apiKey }, embeddedEngine(modules));
    });
}
