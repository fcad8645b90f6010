import { SingleBar } from 'cli-progress';
import { performance } from 'node:perf_hooks';
import type { PostTurnsDto, TurnDto } from '@engram/services/ingest/turns.dto';
import { measureOnlineRebuild } from './online-rebuild';
import type { BenchOptions, BenchReport, OnlineRebuildReport } from './options';
import { pick, probeStatement, seededRandom, streamSeed, TEMPLATES, userIdOf, workloadQueries, workloadRequests } from './workload';
import { type BenchEngine, httpEngine, waitUntilRecalled } from './engines';
import { round2, summariseLatencies } from './statistics';
import { formatBenchReport } from './report';
import { httpEngramClient } from '../client/http-engram-client';
import { progressBar, sleep } from './cli-helpers';
import { storeRequestRates } from './store-requests';

const MB = 1024 * 1024;

export async function runBench(options: BenchOptions, startEmbedded: (http: boolean) => Promise<BenchEngine>): Promise<BenchReport> {
  const print = options.print ?? ((line: string) => console.log(line));
  const bars = options.progress ?? true;
  const engine = options.url
    ? httpEngine(options.url, options.apiKey ?? process.env.ENGRAM_API_KEY, {
        urls: options.metricsUrls,
        key: options.metricsKey ?? process.env.ENGRAM_METRICS_KEY ?? process.env.ENGRAM_ADMIN_KEY,
      })
    : await startEmbedded(options.onlineRebuild === true);
  const rss = new RssSampler();
  const cpuAtStart = process.cpuUsage();
  const wallAtStart = performance.now();
  let cpuMark = cpuAtStart;
  const cpuSince = (): number => {
    const now = process.cpuUsage();
    const seconds = (now.user - cpuMark.user + now.system - cpuMark.system) / 1e6;
    cpuMark = now;
    return round2(seconds);
  };
  try {
    // 1. Ingest at full speed, until the read side has caught up.
    const beforeIngest = await engine.counters();
    const ingestBar = progressBar(bars, 'ingest   ', options.turns);
    const ingestStarted = performance.now();
    for (const request of workloadRequests(options)) {
      await engine.engram.ingest(request);
      ingestBar.increment(request.turns.length);
    }
    ingestBar.stop();
    await drain(engine, bars);
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    const afterIngest = await engine.counters();
    let storeRequests: BenchReport['storeRequests'] = {
      ingestPer1000Turns: storeRequestRates(beforeIngest.requests, afterIngest.requests, options.turns, 1000),
      freshnessPer1000Turns: null,
      perRecall: null,
    };
    const peakRssMbAfter = { ingest: rss.mark(), freshness: 0, recall: 0, rebuild: 0 };
    const phaseCpuSeconds = { ingest: cpuSince(), freshness: 0, recall: 0, rebuild: 0 };
    const serverCpu = {
      ingestMsPerTurn: msPer(beforeIngest.cpuSeconds, afterIngest.cpuSeconds, options.turns),
      recallMsPerQuery: null as number | null,
    };

    let freshness: BenchReport['freshnessMs'] = { p50: 0, p99: 0, max: 0, samples: 0, missed: 0, rate: options.freshnessRate };
    const sequential: number[] = [];
    const concurrent: number[] = [];
    let memories = 0;
    let recallQuestionsCpu = 0;
    let rebuild: BenchReport['rebuild'] = { eventsPerSec: null, events: null, seconds: null };
    let onlineRebuild: OnlineRebuildReport | undefined;
    if (options.onlineRebuild) {
      if (!engine.url) throw new Error("--online-rebuild needs the engram's HTTP API");
      const engram = httpEngramClient({
        url: engine.url,
        apiKey: options.apiKey ?? process.env.ENGRAM_API_KEY,
        adminKey: options.adminKey ?? process.env.ENGRAM_ADMIN_KEY,
      });
      onlineRebuild = await measureOnlineRebuild(engram, options, bars);
      memories = onlineRebuild.comparison.memories.right;
    } else {
      // 2. Freshness at a steady rate, at that size.
      freshness = await measureFreshness(engine, options, bars);
      await drain(engine, bars); // recall is timed on a pipeline at rest, not on freshness's backlog
      const afterFreshness = await engine.counters();
      storeRequests = {
        ...storeRequests,
        freshnessPer1000Turns: storeRequestRates(afterIngest.requests, afterFreshness.requests, freshnessTurns(options), 1000),
      };
      peakRssMbAfter.freshness = rss.mark();
      phaseCpuSeconds.freshness = cpuSince();

      // 3. Recall latency: sequential, then overlapping clients.
      const queries = workloadQueries(options, options.queries);
      const recallBar = progressBar(bars, 'recall   ', queries.length);
      for (const query of queries) {
        const started = performance.now();
        await engine.engram.recall(query);
        sequential.push(performance.now() - started);
        recallBar.increment();
      }
      recallBar.stop();
      const concurrentBar = progressBar(bars, `recall×${options.concurrency} `, queries.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (next < queries.length) {
            const query = queries[next++];
            const started = performance.now();
            await engine.engram.recall(query);
            concurrent.push(performance.now() - started);
            concurrentBar.increment();
          }
        }),
      );
      concurrentBar.stop();

      recallQuestionsCpu = cpuSince();
      const afterRecall = await engine.counters();
      serverCpu.recallMsPerQuery = msPer(afterFreshness.cpuSeconds, afterRecall.cpuSeconds, sequential.length + concurrent.length);
      storeRequests = {
        ...storeRequests,
        perRecall: storeRequestRates(afterFreshness.requests, afterRecall.requests, sequential.length + concurrent.length),
      };
      const memoriesBar = progressBar(bars, 'count    ', Math.min(options.users, options.turns));
      for (let user = 0; user < Math.min(options.users, options.turns); user++) {
        memories += (await engine.engram.memories(userIdOf(user))).length;
        memoriesBar.increment();
      }
      memoriesBar.stop();
      peakRssMbAfter.recall = rss.mark();
      phaseCpuSeconds.recall = round2(recallQuestionsCpu + cpuSince());

      // 4. Rebuild (embedded only: offline, on the same data directory).
      if (engine.rebuild) {
        let bar: SingleBar | undefined;
        let current = '';
        const result = await engine.rebuild((done, total, projection) => {
          if (projection !== current) {
            bar?.stop();
            current = projection;
            bar = progressBar(bars, `rebuild ${projection.padEnd(12)}`, total);
          }
          bar?.update(done);
        });
        bar?.stop();
        rebuild = {
          eventsPerSec: Math.round(result.events / Math.max(result.seconds, 0.001)),
          events: result.events,
          seconds: round2(result.seconds),
        };
      }
    }
    peakRssMbAfter.rebuild = rss.mark();
    phaseCpuSeconds.rebuild = cpuSince();
    const embedded = engine.mode === 'embedded';

    const report: BenchReport = {
      mode: engine.mode,
      embedder: engine.embedder,
      turns: options.turns,
      users: options.users,
      seed: options.seed,
      memories,
      ingest: {
        turnsPerSec: Math.round(options.turns / ingestSeconds),
        turns: options.turns,
        seconds: round2(ingestSeconds),
        turnsPerRequest: options.turnsPerRequest,
      },
      freshnessMs: freshness,
      recallMs: { ...summariseLatencies(sequential), concurrent: { ...summariseLatencies(concurrent), clients: options.concurrency } },
      rebuild,
      storeRequests:
        afterIngest.requests.mongodb || afterIngest.requests.elasticsearch || afterIngest.requests.kafka ? storeRequests : null,
      serverCpu: serverCpu.ingestMsPerTurn === null ? null : serverCpu,
      ...(onlineRebuild ? { onlineRebuild } : {}),
      peakRssMb: engine.mode === 'embedded' ? rss.peakMb() : null,
      process: {
        peakHeapMb: rss.breakdownMb().heapUsed,
        peakExternalMb: rss.breakdownMb().external,
        peakRssMbAfter,
        cpuSeconds: round2(((cpu) => (cpu.user + cpu.system) / 1e6)(process.cpuUsage(cpuAtStart))),
        wallSeconds: round2((performance.now() - wallAtStart) / 1000),
        phaseCpuSeconds: embedded ? phaseCpuSeconds : null,
        ingestTurnsPerCpuSecond: embedded ? Math.round(options.turns / Math.max(phaseCpuSeconds.ingest, 0.01)) : null,
        recallCpuMsPerQuery:
          embedded && sequential.length + concurrent.length > 0
            ? round2((recallQuestionsCpu * 1000) / (sequential.length + concurrent.length))
            : null,
        rebuildEventsPerCpuSecond:
          embedded && rebuild.events !== null ? Math.round(rebuild.events / Math.max(phaseCpuSeconds.rebuild, 0.01)) : null,
      },
    };
    print(formatBenchReport(report));
    if (options.json) print(JSON.stringify(report));
    return report;
  } finally {
    rss.stop();
    await engine.close();
  }
}

/** CPU milliseconds per unit of work between two readings of the server's CPU; null where it is not read (in-process). */
function msPer(before: number | null, after: number | null, units: number): number | null {
  return before === null || after === null ? null : round2(((after - before) * 1000) / Math.max(units, 1));
}

/** One freshness turn in this many is a probe. */
const PROBE_EVERY = 5;

/** Turns the freshness phase posts. */
const freshnessTurns = (options: Pick<BenchOptions, 'freshnessSamples'>) => options.freshnessSamples * PROBE_EVERY;

/**
 * Posts turns for existing users at `freshnessRate` turns/s (one turn per POST, so the rate is
 * even); every k-th turn is a probe, timed from its POST until recall returns a memory sourced
 * from it. The probe's recall passes the POST's position as `after`, so the server tells when the
 * read side has caught up (cheap offset checks) instead of the bench polling recall in a loop —
 * dozens of probes polling a full recall every few milliseconds would load the very pipeline they
 * time. Waiting does not make the pipeline faster: this is still how long it takes on its own.
 */
async function measureFreshness(engine: BenchEngine, options: BenchOptions, bars: boolean): Promise<BenchReport['freshnessMs']> {
  const samples = options.freshnessSamples;
  const total = freshnessTurns(options);
  const random = seededRandom(streamSeed(options.seed, 'freshness'));
  const users = Math.min(options.users, options.turns);
  const bar = progressBar(bars, 'freshness', samples);
  const waits: Promise<number | null>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / options.freshnessRate;
    const now = performance.now();
    if (due > now) await sleep(due - now);
    const user = Math.floor(random() * users);
    const userId = userIdOf(user);
    const turnId = `f${i}`;
    const probe = i % PROBE_EVERY === 0 ? probeStatement(options.seed, i / PROBE_EVERY) : null;
    const text = probe ? probe.text : pick(random, TEMPLATES)(random).text;
    const posted = performance.now();
    const ingested = engine.engram.ingest({
      userId,
      sessionId: 'fresh',
      turns: [{ turnId, role: 'user', text, occurredAt: new Date().toISOString() } as TurnDto],
    } as PostTurnsDto);
    if (probe) {
      waits.push(
        ingested
          .then(({ position }) => waitUntilRecalled(engine.engram, userId, probe.marker, turnId, position, posted))
          .then((ms) => {
            bar.increment();
            return ms;
          }),
      );
    } else {
      await ingested;
    }
  }
  const results = await Promise.all(waits);
  bar.stop();
  const found = results.filter((ms): ms is number => ms !== null);
  const summary = summariseLatencies(found);
  return {
    p50: summary.p50,
    p99: summary.p99,
    max: summary.max,
    samples: found.length,
    missed: results.length - found.length,
    rate: options.freshnessRate,
  };
}

/**
 * Peak resident set (the kernel's high-water mark, plus samples in case maxRSS is unavailable),
 * with the peaks of the V8 heap and of memory outside it (SQLite's page cache, buffers), to tell
 * where it goes.
 */
class RssSampler {
  private peak = { rss: 0, heapUsed: 0, external: 0 };
  private readonly timer = setInterval(() => this.sample(), 250);

  constructor() {
    this.sample();
  }

  private sample(): void {
    const usage = process.memoryUsage();
    this.peak = {
      rss: Math.max(this.peak.rss, usage.rss),
      heapUsed: Math.max(this.peak.heapUsed, usage.heapUsed),
      external: Math.max(this.peak.external, usage.external + usage.arrayBuffers),
    };
  }

  peakMb(): number {
    const kernel = process.resourceUsage().maxRSS * 1024; // kilobytes
    return Math.round(Math.max(this.peak.rss, kernel) / MB);
  }

  /** Peak RSS so far, in MB (marks the end of a phase). */
  mark(): number {
    this.sample();
    return this.peakMb();
  }

  breakdownMb(): { heapUsed: number; external: number } {
    return { heapUsed: Math.round(this.peak.heapUsed / MB), external: Math.round(this.peak.external / MB) };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function drain(engine: BenchEngine, bars: boolean): Promise<void> {
  let pending = await engine.engram.pending();
  const bar = progressBar(bars, 'pipeline ', Math.max(1, pending));
  const total = Math.max(1, pending);
  while (pending > 0) {
    await sleep(20);
    pending = await engine.engram.pending();
    bar.update(Math.max(0, total - pending));
  }
  bar.update(total);
  bar.stop();
}
