import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PipelineOptions, ReplayOptions } from '@engram/config';
import { EngramEvent } from '@engram/contracts';
import {
  EventLog,
  FactStore,
  followActiveVersion,
  lag,
  LogPosition,
  reached,
  RebuildLedger,
  RebuildRecord,
  Subscription,
  VersionedProjection,
} from '@engram/ports';
import { fromPosition, isReprocessRun, lineageToRebuild, type ReplaySource, reprocessedSources } from './lineage';
import { parseMessages } from './parse-messages';
import { ReplayProjections } from './replay-projections';
import { RebuildConflict, RebuildInterrupted, RebuildStatus, recordedStatus, Running, runningStatus, sample } from './rebuild-status';
import { withoutStaleDecisions } from './stale-decisions';

export interface OnlineRebuildOptions {
  /** Called once the new version caught up with the live end, right before the swap (tests, operators' checks). */
  readonly beforeSwap?: () => Promise<void>;
  /** Overrides ENGRAM_REBUILD_GRACE_MS (`ReplayOptions.graceMs`). */
  readonly graceMs?: number;
  /** Keep the old version after the grace period (compare, roll back by hand). */
  readonly keepOld?: boolean;
  /** Catch-up rounds before the swap while the live end keeps moving. Default 5. */
  readonly maxCatchUpRounds?: number;
}

type Apply = (events: readonly EngramEvent[]) => Promise<void>;

/**
 * Rebuilds the facts, sessions and search projections without downtime, in
 * both modes. For one projection:
 *
 * 1. Opens version N+1 next to the live version N (readers keep using N) and
 *    persists a record of the rebuild (the ledger).
 * 2. Replays the projection's input topic from the beginning with the
 *    rebuild's own consumer group `rebuild-<projection>-v<N+1>` into N+1, while
 *    live stages keep writing N, until it reached the live end (re-read until
 *    it stops moving).
 * 3. Moves the pointer to N+1 atomically (a row, a document, the alias).
 * 4. Keeps consuming through the grace period: whatever live writers put into
 *    N before they saw the pointer move (a cached pointer, a batch in flight)
 *    is in the log and reaches N+1 too; every write is idempotent (revision /
 *    turn id), so applying a decision twice changes nothing.
 * 5. Drops N after the grace period.
 *
 * The checkpoint is the consumer group's committed offsets plus the ledger
 * record: after a crash or a restart the process resumes every unfinished
 * rebuild from there (`onApplicationBootstrap`), not from zero.
 *
 * A facts or search version built by `engram reprocess` (and activated) is
 * not memory.facts.v1 from the start: it is the run's decisions topic, then
 * memory.facts.v1 from the switch position (`reprocessedSources`, as the
 * offline `Rebuilder` replays it). Its rebuild reads the run's topic to its
 * end first (the run is finished: the topic no longer grows), then
 * memory.facts.v1 with the same group, skipping what precedes the switch, and
 * leaves out the stale decisions around the switch (`withoutStaleDecisions`);
 * the new version's record carries the same lineage, so every later rebuild,
 * offline or online, replays it the same way.
 */
@Injectable()
export class OnlineRebuilds implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(OnlineRebuilds.name);
  private readonly running = new Map<VersionedProjection, Running>();
  private readonly starting = new Set<VersionedProjection>();
  private stopping = false;
  private readonly wakeUps = new Set<() => void>();
  /** Retries of the overlap of rebuilds whose new version already serves (see `execute`). */
  private readonly retries = new Map<VersionedProjection, { attempts: number; timer?: NodeJS.Timeout }>();

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
    private readonly projections: ReplayProjections,
    @Inject(ReplayOptions) private readonly replay: ReplayOptions,
    @Inject(PipelineOptions) private readonly pipeline: PipelineOptions,
  ) {}

  /** Resumes the rebuilds a previous process left unfinished. */
  async onApplicationBootstrap(): Promise<void> {
    for (const record of await this.ledger.list()) {
      // A reprocess's record is not a rebuild to resume (an interrupted reprocess is dropped and run again).
      if ((record.phase === 'replaying' || record.phase === 'swapped') && !isReprocessRun(record) && !this.running.has(record.projection)) {
        this.log.log({ projection: record.projection, version: record.version, phase: record.phase }, 'resuming an online rebuild');
        this.launch(record, {});
      }
    }
  }

  /** Stops every rebuild where it is (the batch in flight is committed); they resume at the next start. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const retry of this.retries.values()) clearTimeout(retry.timer);
    for (const wake of this.wakeUps) wake();
    await Promise.allSettled([...this.running.values()].map((r) => r.finished));
  }

  /** Starts rebuilding a projection into a new version; resolves once it started (its record is persisted). */
  async start(projection: VersionedProjection, options: OnlineRebuildOptions = {}): Promise<RebuildStatus> {
    return runningStatus(await this.begin(projection, options));
  }

  /** Starts a rebuild and waits until it is done (tests, scripts); throws if it failed. */
  async run(projection: VersionedProjection, options: OnlineRebuildOptions = {}): Promise<RebuildRecord> {
    const record = await (await this.begin(projection, options)).finished;
    if (record.phase === 'failed') throw new Error(`${projection} rebuild failed: ${record.error}`);
    return record;
  }

  private async begin(projection: VersionedProjection, options: OnlineRebuildOptions): Promise<Running> {
    if (this.stopping) throw new Error('shutting down');
    if (this.running.has(projection) || this.starting.has(projection)) throw new RebuildConflict(projection);
    this.starting.add(projection);
    try {
      // One at a time per projection across processes too: an unfinished record is resumed, not replaced.
      const unfinished = (await this.ledger.list()).find(
        (r) => r.projection === projection && (r.phase === 'replaying' || r.phase === 'swapped'),
      );
      if (unfinished && isReprocessRun(unfinished)) {
        throw new RebuildConflict(
          projection,
          `reprocess run ${unfinished.reprocess.runId} is building ${projection}@${unfinished.version} (or was interrupted: engram projections drop ${projection}@${unfinished.version})`,
        );
      }
      if (unfinished) throw new RebuildConflict(projection);
      const versions = this.projections.versions(projection);
      const previousVersion = await versions.active();
      const lineage = await lineageToRebuild(this.ledger, projection, previousVersion);
      // The next number after the serving one. A leftover under that number (a rebuild that died
      // before recording itself, or failed) is never served: it is dropped and rebuilt from empty.
      const version = previousVersion + 1;
      const record: RebuildRecord = {
        projection,
        version,
        previousVersion,
        group: `rebuild-${projection}-v${version}`,
        phase: 'replaying',
        startedAt: new Date().toISOString(),
        done: 0,
        ...(lineage ? { reprocess: lineage } : {}),
      };
      const sources = this.sources(record);
      await this.eventLog.ensureTopics(sources.map((s) => s.topic));
      await versions.drop(version);
      for (const source of sources) await this.eventLog.resetGroup(source.topic, record.group, { to: 'beginning' });
      await this.ledger.save(record);
      return this.launch(record, options);
    } finally {
      this.starting.delete(projection);
    }
  }

  /** What a rebuild reads, in order: the input topic from the start, or a reprocessed version's run topic and then memory.facts.v1 from the switch. */
  private sources(record: RebuildRecord): ReplaySource[] {
    const topic = this.topic(record.projection);
    return record.reprocess ? reprocessedSources(record.reprocess, topic) : [{ topic, skipBelow: {} }];
  }

  /** Every rebuild recorded, newest first; running ones with live numbers. */
  async status(): Promise<RebuildStatus[]> {
    const records = await this.ledger.list();
    const result: RebuildStatus[] = [];
    for (const record of records.reverse()) {
      const running = this.running.get(record.projection);
      if (running && running.record.version === record.version) {
        await this.refreshTotal(running);
        result.push(runningStatus(running));
      } else {
        result.push(recordedStatus(record));
      }
    }
    return result;
  }

  isRunning(projection: VersionedProjection): boolean {
    return this.running.has(projection) || this.starting.has(projection);
  }

  /**
   * The projection applied to one version's store: the same classes live stages use.
   * A reprocessed version leaves out stale decisions around its switch, judged by the
   * facts being built (facts) or the serving facts (search), as the offline rebuild does.
   */
  private projector(projection: VersionedProjection, store: object, reprocessed: boolean): Apply {
    const p = this.projections.over(projection, store);
    if (!reprocessed || projection === 'sessions') return (events) => p.apply(events);
    // Search follows the pointer: a facts rebuild running beside this one swaps and drops the version this started with.
    const facts =
      projection === 'facts'
        ? (store as FactStore)
        : followActiveVersion(this.projections.facts, { maxAgeMs: this.pipeline.projectionPointerTtlMs });
    return async (events) => p.apply(await withoutStaleDecisions(facts, events));
  }

  /** The input topic as this deployment names it (search and facts from decisions, sessions from screened turns). */
  topic(projection: VersionedProjection): string {
    return this.projections.topic(projection);
  }

  private launch(record: RebuildRecord, options: OnlineRebuildOptions): Running {
    const running: Running = { record, done: record.done ?? 0, total: 0, fixed: 0, samples: [], finished: Promise.resolve(record) };
    this.running.set(record.projection, running);
    running.finished = this.execute(running, options).finally(() => this.running.delete(record.projection));
    return running;
  }

  private async save(running: Running, changes: Partial<RebuildRecord>): Promise<void> {
    running.record = { ...running.record, ...changes, done: running.done };
    await this.ledger.save(running.record);
  }

  private async execute(running: Running, options: OnlineRebuildOptions): Promise<RebuildRecord> {
    const { projection, version, previousVersion, group } = running.record;
    const versions = this.projections.versions(projection);
    const topic = this.topic(projection);
    const sources = this.sources(running.record);
    const live = sources[sources.length - 1];
    const graceMs = options.graceMs ?? this.replay.graceMs;
    try {
      if (live?.topic !== topic) throw new Error(`${projection}@${previousVersion} has no switch position: nothing to follow live`);
      await this.eventLog.ensureTopics(sources.map((s) => s.topic));
      const apply = this.projector(projection, await versions.open(version), running.record.reprocess !== undefined);
      // Summed first and assigned once: a status read meanwhile keeps seeing the recorded progress, not 0.
      let done = 0;
      let fixed = 0;
      for (const source of sources) {
        done += lag(await this.eventLog.committedPosition(source.topic, group), {});
        if (source !== live) fixed += lag(await this.eventLog.endPosition(source.topic), {});
      }
      running.done = done;
      running.fixed = fixed;
      running.total = 0;
      await this.refreshTotal(running);
      sample(running);
      // A reprocess run's topic first, to its end (it is finished; after a restart, what is left of it).
      for (const source of sources.slice(0, -1)) {
        if (reached(await this.eventLog.committedPosition(source.topic, group), await this.eventLog.endPosition(source.topic))) continue;
        running.subscription = await this.subscribe(running, source, apply);
        await this.catchUp(running, source.topic);
        await running.subscription.stop();
        running.subscription = undefined;
      }
      running.subscription = await this.subscribe(running, live, apply);

      if (running.record.phase === 'replaying') {
        // 2. Catch up with the live end, again while it keeps moving.
        let end = await this.catchUp(running, topic);
        if (options.beforeSwap) await options.beforeSwap();
        for (let round = 0; round < (options.maxCatchUpRounds ?? 5); round++) {
          const before = end;
          end = await this.catchUp(running, topic);
          if (lag(end, before) === 0) break;
        }
        // 3. Swap.
        await versions.activate(version);
        await this.save(running, { phase: 'swapped', swappedAt: new Date().toISOString() });
        this.log.log({ projection, version, previousVersion }, 'projection swapped to the new version');
      }

      // 4. Apply the overlap through the grace period (also after a restart in this phase).
      await this.catchUp(running, topic);
      await this.sleepUntil(Date.parse(running.record.swappedAt ?? new Date().toISOString()) + graceMs);
      await this.catchUp(running, topic);
      await running.subscription.stop();
      running.subscription = undefined;

      // 5. Drop the old version (unless someone activated it again meanwhile).
      if (!options.keepOld && previousVersion !== version && (await versions.active()) !== previousVersion) {
        await versions.drop(previousVersion);
      }
      this.retries.delete(projection);
      await this.save(running, { phase: 'done', finishedAt: new Date().toISOString(), error: undefined });
      this.log.log({ projection, version, events: running.done }, 'online rebuild done');
      return running.record;
    } catch (error) {
      await running.subscription?.stop().catch(() => undefined);
      running.subscription = undefined;
      if (error instanceof RebuildInterrupted || this.stopping) {
        // Not a failure: the checkpoint stays, the next start resumes.
        await this.save(running, {}).catch(() => undefined);
        return running.record;
      }
      const reason = error instanceof Error ? error.message : String(error);
      if (running.record.phase === 'swapped') return this.retryAfterSwap(running, options, reason);
      this.log.error({ projection, version, reason }, 'online rebuild failed');
      if (running.record.phase === 'replaying') await versions.drop(version).catch(() => undefined);
      await this.save(running, { phase: 'failed', finishedAt: new Date().toISOString(), error: reason }).catch(() => undefined);
      return running.record;
    }
  }

  /**
   * A failure after the swap (a store connection dropped while applying the overlap) is not a failed
   * rebuild: the new version already serves and the old one must not come back. The record stays
   * `swapped` with the error, and the overlap is tried again from the checkpoint after a doubling
   * delay (and at the next start, like any unfinished rebuild) until it completes.
   */
  private async retryAfterSwap(running: Running, options: OnlineRebuildOptions, reason: string): Promise<RebuildRecord> {
    const { projection, version } = running.record;
    const retry = this.retries.get(projection) ?? { attempts: 0 };
    retry.attempts++;
    const delayMs = Math.min(30_000, this.pipeline.stageRetryDelayMs * 2 ** retry.attempts);
    this.log.error(
      { projection, version, reason, attempt: retry.attempts, retryInMs: delayMs },
      'online rebuild: the new version serves, applying the overlap failed; retrying',
    );
    await this.save(running, { error: reason }).catch(() => undefined);
    retry.timer = setTimeout(() => {
      retry.timer = undefined;
      if (!this.stopping && !this.running.has(projection)) this.launch(running.record, options);
    }, delayMs);
    this.retries.set(projection, retry);
    return running.record;
  }

  private async subscribe(running: Running, { topic, skipBelow }: ReplaySource, apply: Apply): Promise<Subscription> {
    const { rateLimit: rate, batchSize } = this.replay;
    // With a rate limit, small batches keep each pause short (shutdown waits for the batch in flight).
    const maxBatchSize = rate > 0 ? Math.max(1, Math.min(batchSize, Math.ceil(rate / 10))) : batchSize;
    let lastSaved = Date.now();
    let failures = 0;
    return this.eventLog.subscribe({ topic, group: running.record.group, maxBatchSize }, async (messages) => {
      try {
        const events = parseMessages(fromPosition(messages, skipBelow), (message, error) =>
          this.log.error({ topic, offset: message.offset, reason: String(error) }, 'skipping invalid event during online rebuild'),
        );
        await apply(events);
        running.done += messages.length;
        running.total = Math.max(running.total, running.done);
        sample(running);
        if (rate > 0) await this.sleep((messages.length * 1000) / rate);
        // Progress for other processes' GET /v1/admin/rebuilds (the checkpoint itself is the group's offsets).
        if (Date.now() - lastSaved >= 1000) {
          lastSaved = Date.now();
          await this.save(running, {});
        }
        failures = 0;
      } catch (error) {
        // The log retries the batch (with backoff); a batch that keeps failing fails the rebuild.
        if (++failures >= this.pipeline.stageAttempts) running.failure ??= error;
        throw error;
      }
    });
  }

  /** Messages to apply in all: the fixed topics' and the live input topic's as it stands now. */
  private async refreshTotal(running: Running): Promise<void> {
    running.total = Math.max(
      running.total,
      running.fixed + lag(await this.eventLog.endPosition(this.topic(running.record.projection)), {}),
    );
  }

  /** Waits until the rebuild's group reached the end position of `topic` read now; returns that position. */
  private async catchUp(running: Running, topic: string): Promise<LogPosition> {
    const end = await this.eventLog.endPosition(topic);
    await this.refreshTotal(running);
    for (;;) {
      if (this.stopping) throw new RebuildInterrupted();
      if (running.failure) throw running.failure;
      if (reached(await this.eventLog.committedPosition(topic, running.record.group), end)) return end;
      await this.sleep(20);
    }
  }

  private async sleepUntil(instant: number): Promise<void> {
    while (Date.now() < instant) {
      if (this.stopping) throw new RebuildInterrupted();
      await this.sleep(Math.min(1000, instant - Date.now()));
    }
  }

  /** A sleep that shutdown cuts short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUps.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUps.add(done);
    });
  }
}
