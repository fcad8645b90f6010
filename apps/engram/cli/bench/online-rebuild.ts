import { performance } from 'node:perf_hooks';
import type { PostTurnsDto } from '@engram/services/ingest/turns.dto';
import type { RecallDto } from '@engram/services/recall/recall.dto';
import type { RebuildStatus } from '@engram/services/replay/rebuild-status';
import { pick, probeStatement, questionAbout, seededRandom, streamSeed, TEMPLATES, userIdOf, userStatements } from './workload';
import { round2, summariseLatencies } from './statistics';
import { compareSnapshots, type ProjectionSnapshot, snapshotMemories, snapshotRecall, type UserSnapshot } from './snapshots';
import { progressBar, sleep } from './cli-helpers';
import type { BenchOptions, OnlineRebuildReport } from './options';
import { waitUntilRecalled } from './engines';
import type { EngramClient } from '../client/engram-client';

/** Starts an online rebuild of every projection and follows it until each is done (throws if one failed). */
async function onlineRebuild(
  engram: EngramClient,
  bars: boolean,
  label: string,
): Promise<{
  rebuilt: OnlineRebuildReport['rebuilt'];
  inputAtStart: number;
  doneAtSwap: number;
  secondsToSwap: number;
  secondsToDone: number;
  statusErrors: number;
}> {
  const started = performance.now();
  const rebuilds = await engram.startRebuilds('all');
  const key = (r: Pick<RebuildStatus, 'projection' | 'version'>) => `${r.projection}@${r.version}`;
  const wanted = new Set(rebuilds.map(key));
  const atSwap = new Map<string, number>();
  // The input topics' sizes when the rebuild began: the first total a rebuild reports (0 until it looked).
  const totalAtStart = new Map<string, number>();
  let swappedAt: number | null = null;
  const bar = progressBar(bars, label, 1);
  let statusErrors = 0;
  for (let consecutive = 0; ;) {
    // A status read that fails now and then (a store connection reset) is counted, not fatal: the rebuild runs server-side.
    let listed: RebuildStatus[];
    try {
      listed = await engram.rebuilds();
    } catch (error) {
      statusErrors++;
      if (++consecutive >= 40) throw error;
      await sleep(500);
      continue;
    }
    consecutive = 0;
    const mine = listed.filter((r) => wanted.has(key(r)));
    const failed = mine.find((r) => r.phase === 'failed');
    if (failed) {
      bar.stop();
      throw new Error(`online rebuild of ${failed.projection} failed: ${failed.error}`);
    }
    bar.setTotal(
      Math.max(
        1,
        mine.reduce((sum, r) => sum + Math.max(r.total, r.done), 0),
      ),
    );
    bar.update(mine.reduce((sum, r) => sum + r.done, 0));
    for (const r of mine) {
      if (r.total > 0 && !totalAtStart.has(key(r))) totalAtStart.set(key(r), r.total);
      if (r.phase !== 'replaying' && !atSwap.has(key(r))) atSwap.set(key(r), r.done);
    }
    if (swappedAt === null && atSwap.size === wanted.size) swappedAt = performance.now();
    if (mine.length === wanted.size && mine.every((r) => r.phase === 'done')) {
      bar.stop();
      return {
        rebuilt: mine.map((r) => ({ projection: r.projection, version: r.version, events: r.done })),
        // facts and search both replay memory.facts.v1: count that topic once
        inputAtStart: mine.filter((r) => r.projection !== 'search').reduce((sum, r) => sum + (totalAtStart.get(key(r)) ?? r.total), 0),
        doneAtSwap: [...atSwap.values()].reduce((sum, n) => sum + n, 0),
        secondsToSwap: round2(((swappedAt ?? performance.now()) - started) / 1000),
        secondsToDone: round2((performance.now() - started) / 1000),
        statusErrors,
      };
    }
    await sleep(250);
  }
}

/**
 * Every workload user's memories (status=all) and a recall answer about their first statement, with
 * their first session, ranked at `now`. The recalls record accesses like any other: with
 * ENGRAM_ACCESS_WEIGHT > 0 a second dump ranks with the first one's accesses (read-side feedback,
 * not part of any rebuilt projection), so compare rebuilds with the weight at 0.
 */
async function dumpReadSide(
  engram: EngramClient,
  options: BenchOptions,
  bars: boolean,
  label: string,
  now: string,
): Promise<ProjectionSnapshot> {
  const users = Math.min(options.users, options.turns);
  const bar = progressBar(bars, label, users);
  const snapshot: Record<string, UserSnapshot> = {};
  for (let user = 0; user < users; user++) {
    const userId = userIdOf(user);
    const memories = await engram.memories(userId, 'all');
    const query = questionAbout(userStatements(options.seed, user, 1)[0], seededRandom(streamSeed(options.seed, 'dump', user)));
    const answer = await engram.recall({ userId, query, sessionId: 's0', now } as RecallDto);
    snapshot[userId] = { memories: snapshotMemories(memories), recall: snapshotRecall(answer) };
    bar.increment();
  }
  bar.stop();
  return snapshot;
}

async function drainHttp(engram: EngramClient): Promise<void> {
  while ((await engram.pending()) > 0) await sleep(100);
}

const PROBE_TIMEOUT_MS = 120_000;
/** Turn posts in flight at once while an online rebuild runs under ingest. */
const REBUILD_POSTS_IN_FLIGHT = 8;

/**
 * The rebuild under ingest: probe turns first (each with a word no other turn has, recalled before
 * the rebuild starts), then, while every projection is rebuilt online, turns posted at a steady
 * rate and a sequential recall loop over the probes — a failure is a non-200 or a probe's memory
 * missing. Then the ingest stops, the read side drains and is dumped; a second online rebuild of
 * the same log with nothing ingested (a from-scratch build) must give the same dump.
 */
export async function measureOnlineRebuild(engram: EngramClient, options: BenchOptions, bars: boolean): Promise<OnlineRebuildReport> {
  const users = Math.min(options.users, options.turns);

  const probes = Array.from({ length: Math.min(20, users) }, (_, n) => ({
    userId: userIdOf(n),
    turnId: `orp${n}`,
    ...probeStatement(options.seed, 1_000_000 + n),
  }));
  const probeBar = progressBar(bars, 'probes   ', probes.length);
  for (const probe of probes) {
    const turn = { turnId: probe.turnId, role: 'user', text: probe.text, occurredAt: new Date().toISOString() };
    const { position } = await engram.ingest({ userId: probe.userId, sessionId: 'online-rebuild', turns: [turn] } as PostTurnsDto);
    const found = await waitUntilRecalled(engram, probe.userId, probe.marker, probe.turnId, position, performance.now(), PROBE_TIMEOUT_MS);
    if (found === null)
      throw new Error(`probe ${probe.turnId} of ${probe.userId} not recalled within ${PROBE_TIMEOUT_MS / 1000} s before the rebuild`);
    probeBar.increment();
  }
  probeBar.stop();
  await drainHttp(engram);

  let stop = false;
  const ingestStats = { turns: 0, failures: 0 };
  const random = seededRandom(streamSeed(options.seed, 'online-rebuild'));
  // Up to REBUILD_POSTS_IN_FLIGHT posts at once, so a slow answer does not hold the rate down.
  const inFlight = new Set<Promise<void>>();
  const ingestLoop = (async () => {
    const started = performance.now();
    for (let i = 0; !stop; i++) {
      const due = started + (i * 1000) / options.rebuildIngestRate;
      const now = performance.now();
      if (due > now) await sleep(due - now);
      while (inFlight.size >= REBUILD_POSTS_IN_FLIGHT) await Promise.race(inFlight);
      if (stop) break;
      const userId = userIdOf(Math.floor(random() * users));
      const turn = { turnId: `or${i}`, role: 'user', text: pick(random, TEMPLATES)(random).text, occurredAt: new Date().toISOString() };
      const post = engram.ingest({ userId, sessionId: 'online-rebuild', turns: [turn] } as PostTurnsDto).then(
        () => void ingestStats.turns++,
        () => void ingestStats.failures++,
      );
      inFlight.add(post);
      void post.finally(() => inFlight.delete(post));
    }
    await Promise.all(inFlight);
  })();
  const latencies: number[] = [];
  const recallStats = { errors: 0, missing: 0 };
  const recallLoop = (async () => {
    for (let i = 0; !stop; i++) {
      const probe = probes[i % probes.length];
      const started = performance.now();
      try {
        const answer = await engram.recall({ userId: probe.userId, query: probe.marker, k: 5 } as RecallDto);
        latencies.push(performance.now() - started);
        if (![...answer.facts, ...answer.memories].some((m) => m.sourceTurnIds.includes(probe.turnId))) recallStats.missing++;
      } catch {
        latencies.push(performance.now() - started);
        recallStats.errors++;
      }
    }
  })();

  let underIngest: Awaited<ReturnType<typeof onlineRebuild>>;
  try {
    underIngest = await onlineRebuild(engram, bars, 'rebuild (under ingest) ');
  } finally {
    stop = true;
    await Promise.all([ingestLoop, recallLoop]);
  }
  await drainHttp(engram);
  // Both dumps rank at one instant, so time decay cannot tell them apart.
  const dumpNow = new Date().toISOString();
  const first = await dumpReadSide(engram, options, bars, 'dump     ', dumpNow);
  const scratch = await onlineRebuild(engram, bars, 'rebuild (from scratch) ');
  await drainHttp(engram);
  const second = await dumpReadSide(engram, options, bars, 'dump     ', dumpNow);
  const comparison = compareSnapshots(first, second);
  const events = underIngest.rebuilt.reduce((sum, r) => sum + r.events, 0);
  const scratchEvents = scratch.rebuilt.reduce((sum, r) => sum + r.events, 0);
  return {
    logEvents: underIngest.inputAtStart,
    rebuilt: underIngest.rebuilt,
    events,
    secondsToSwap: underIngest.secondsToSwap,
    eventsPerSec: Math.round(underIngest.doneAtSwap / Math.max(underIngest.secondsToSwap, 0.001)),
    secondsToDone: underIngest.secondsToDone,
    statusErrors: underIngest.statusErrors + scratch.statusErrors,
    ingest: {
      rate: options.rebuildIngestRate,
      ...ingestStats,
      turnsPerSec: round2(ingestStats.turns / Math.max(underIngest.secondsToDone, 0.001)),
    },
    recall: {
      ...summariseLatencies(latencies),
      calls: latencies.length,
      failures: recallStats.errors + recallStats.missing,
      errors: recallStats.errors,
      missing: recallStats.missing,
      probes: probes.length,
    },
    fromScratch: {
      events: scratchEvents,
      secondsToSwap: scratch.secondsToSwap,
      eventsPerSec: Math.round(scratch.doneAtSwap / Math.max(scratch.secondsToSwap, 0.001)),
    },
    equal: comparison.equal,
    comparison,
  };
}
