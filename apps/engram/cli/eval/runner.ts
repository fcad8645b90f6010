import * as fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@engram/config';
import { Bm25Index } from '@engram/domain';
import { createEmbedder } from '@engram/embedding';
import { Embedder } from '@engram/ports';
import { progressBar } from '../progress-bar';
import { toRequests, TurnLineDto } from '../turn-lines';
import { type EvalDataset, parseEvalDataset, QuestionLineDto } from './dataset';
import { type EvalReport, pinnedTurnIds, type QuestionResult, rankedTurnIds, rankingDepth, turnDocument } from './metrics';
import { denseRanking } from './baselines';
import { summarise } from './summary';
import { formatMisses, formatReport } from './format';
import type { EngramClient } from '../client/engram-client';
import { type EvalEngine, remoteEngine } from './engines';

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
  /**
   * Ask every question `asOf` the end of the log (the instant the pipeline drained, by this
   * machine's clock): recall's look into the past, over every memory as engram knew it then,
   * which should answer as the live index does (docs/memory-model.md §9 says how close it comes).
   */
  readonly asOfEnd?: boolean;
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
  const { engram } = engine;
  const results: QuestionResult[] = [];
  const sources = new Map<string, Set<string>>();
  try {
    const ingestBar = progressBar(bars, 'ingest  ', dataset.turns.length);
    for (const request of toRequests(dataset.turns, config.ENGRAM_MAX_TURNS_PER_REQUEST)) {
      await engram.ingest(request);
      ingestBar.increment(request.turns.length);
    }
    ingestBar.stop();
    await drain(engram, bars, options.stallTimeoutMs ?? 120_000);
    // One forgetting sweep, as a deployment runs within the hour of ingest (the dataset is a backfill:
    // what expires after a week of world time expires now). A running engram sweeps on its own schedule.
    if (engram.kind === 'in-process') await engram.runForgetting();
    await drain(engram, bars, options.stallTimeoutMs ?? 120_000);

    for (const userId of new Set(dataset.questions.map((q) => q.userId)))
      sources.set(userId, new Set((await engram.memories(userId, 'all')).flatMap((memory) => memory.sourceTurnIds)));

    // Every decision is recorded by now: as of this instant, the past views are today's memories.
    const asOf = options.asOfEnd ? { asOf: new Date().toISOString() } : {};
    const askBar = progressBar(bars, 'recall  ', dataset.questions.length);
    for (const [index, question] of dataset.questions.entries()) {
      const started = performance.now();
      const response = await engram.recall({ userId: question.userId, query: question.question, k: depth, now: question.askedAt, ...asOf });
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

async function drain(engram: EngramClient, bars: boolean, stallTimeoutMs: number): Promise<void> {
  let pending = await engram.pending();
  const total = Math.max(1, pending);
  const bar = progressBar(bars, 'pipeline', total);
  let lastChange = Date.now();
  while (pending > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await engram.pending();
    if (now !== pending) lastChange = Date.now();
    else if (Date.now() - lastChange > stallTimeoutMs)
      throw new Error(`the pipeline has been stuck at ${now} pending events for ${stallTimeoutMs} ms`);
    pending = now;
    bar.update(Math.max(0, total - pending));
  }
  bar.update(total);
  bar.stop();
}
