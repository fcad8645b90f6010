import { Logger } from '@nestjs/common';
import { EngramConfig } from '@engram/config';
import { EngramEvent, MemoryDecision, parseEvent, Topics, UserForgotten } from '@engram/contracts';
import { Embedder, EventLog, lag, LogPosition, reached, SearchIndex, Subscription } from '@engram/ports';
import { SearchProjection } from './search.projection';

/** A new search index version, built next to the live one and not serving until `activate()`. */
export interface SearchIndexVersion {
  readonly version: number;
  /** The version that serves now (dropped after the swap). */
  readonly previousVersion: number | undefined;
  /** Writes and reads of the new version (directly, until activated; searchable once `upsert` resolves). */
  readonly index: SearchIndex;
  /** Atomically makes this version the one every reader and writer uses (Elasticsearch: the alias). */
  activate(): Promise<void>;
  /** Deletes the previous version (after the swap). */
  dropPrevious(): Promise<void>;
  /** Deletes this version (a rebuild that failed before the swap). */
  discard(): Promise<void>;
  /** Releases what the version holds (never a shared client). */
  close(): Promise<void>;
}

/** Creates search index versions: the distributed bindings provide the Elasticsearch one. */
export interface SearchIndexVersions {
  /** Creates `current + 1`, empty (a leftover of a failed rebuild is dropped first), not active. */
  createNext(): Promise<SearchIndexVersion>;
}
export const SearchIndexVersions = Symbol('SearchIndexVersions');

export type OnlineRebuildPhase = 'replaying' | 'swapped' | 'done';

export interface OnlineRebuildProgress {
  readonly phase: OnlineRebuildPhase;
  readonly version: number;
  /** Messages of memory.facts.v1 applied to the new version. */
  readonly done: number;
  /** Messages in the topic (grows while the live system writes). */
  readonly total: number;
}

export interface OnlineRebuildOptions {
  onProgress?: (progress: OnlineRebuildProgress) => void;
  /** Drop the old version this long after the swap (readers in flight finish). Default 0: at once. */
  readonly dropOldAfterMs?: number;
  /** Keep the old version (e.g. to compare or roll back by hand). Default false. */
  readonly keepOld?: boolean;
  /** Called once the new version caught up with the live end, right before the swap (tests, operators' checks). */
  readonly beforeSwap?: () => Promise<void>;
  /** Catch-up rounds before the swap while the live end keeps moving. Default 5. */
  readonly maxCatchUpRounds?: number;
  /** Gives up when a catch-up does not finish in time. Default 10 minutes. */
  readonly catchUpTimeoutMs?: number;
  readonly maxBatchSize?: number;
}

export interface OnlineRebuildResult {
  readonly version: number;
  readonly previousVersion: number | undefined;
  /** Messages applied to the new version. */
  readonly events: number;
  /** Resolves once the old version is dropped (at once, after `dropOldAfterMs`, or never with `keepOld`). */
  readonly oldDropped: Promise<void>;
}

/**
 * Rebuilds the search projection into a new index version while the old one
 * keeps serving, then swaps.
 *
 * 1. Creates version N+1 next to the live version N (not active: the live
 *    indexer and recall keep using N).
 * 2. Replays memory.facts.v1 from the beginning with its own consumer group
 *    (`search-rebuild-v<N+1>`, scoped by the deployment like every group)
 *    through a `SearchProjection` over the new version, until it reached the
 *    live end (re-read until it stops moving, at most `maxCatchUpRounds`).
 * 3. Swaps atomically (Elasticsearch: one alias update): from now on the live
 *    indexer writes and recall reads N+1.
 * 4. Keeps consuming until it reached the end position read after the swap:
 *    whatever the live indexer wrote into N before the swap is then in N+1 as
 *    well. Upserts are versioned by revision, so applying a decision twice (by
 *    the live indexer and by the rebuild) is a no-op.
 * 5. Stops and drops N (at once, after a grace period, or never).
 *
 * Between 3 and 4 a decision appended in the last moments before the swap may
 * be briefly invisible (until the rebuild applies it, normally milliseconds):
 * step 2's repeated catch-up keeps that window to what arrived during the swap.
 */
export class OnlineSearchRebuild {
  private readonly log = new Logger(OnlineSearchRebuild.name);
  private running = false;

  constructor(
    private readonly eventLog: EventLog,
    private readonly embedder: Embedder,
    private readonly versions: SearchIndexVersions,
    private readonly config?: EngramConfig,
  ) {}

  /** memory.facts.v1 as this deployment names it. */
  get topic(): string {
    return `${this.config?.ENGRAM_TOPIC_PREFIX ?? ''}${Topics.facts}`;
  }

  async run(options: OnlineRebuildOptions = {}): Promise<OnlineRebuildResult> {
    if (this.running) throw new Error('OnlineSearchRebuild: a rebuild is already running');
    this.running = true;
    try {
      return await this.rebuild(options);
    } finally {
      this.running = false;
    }
  }

  private async rebuild(options: OnlineRebuildOptions): Promise<OnlineRebuildResult> {
    const topic = this.topic;
    const timeoutMs = options.catchUpTimeoutMs ?? 600_000;
    await this.eventLog.ensureTopics([topic]);
    const target = await this.versions.createNext();
    const version = target.version;
    const group = `search-rebuild-v${version}`;
    const projection = new SearchProjection(target.index, this.embedder, this.config);
    let phase: OnlineRebuildPhase = 'replaying';
    let done = 0;
    let total = lag(await this.eventLog.endPosition(topic), {});
    const report = () => options.onProgress?.({ phase, version, done, total: Math.max(total, done) });

    let subscription: Subscription | undefined;
    let swapped = false;
    let failure: unknown;
    try {
      await this.eventLog.resetGroup(topic, group, { to: 'beginning' });
      report();
      subscription = await this.eventLog.subscribe({ topic, group, maxBatchSize: options.maxBatchSize ?? 2000 }, async (messages) => {
        const events: EngramEvent[] = [];
        for (const message of messages) {
          try {
            events.push(parseEvent(message.value));
          } catch (error) {
            this.log.error({ topic, offset: message.offset, reason: String(error) }, 'skipping invalid event during online rebuild');
          }
        }
        await projection.apply(events as readonly (MemoryDecision | UserForgotten)[]);
        done += messages.length;
        report();
      });
      const catchUp = async (): Promise<LogPosition> => {
        const end = await this.eventLog.endPosition(topic);
        total = lag(end, {});
        await this.waitForGroup(topic, group, end, timeoutMs, () => failure);
        return end;
      };

      // 2. Catch up with the live end, again while it keeps moving.
      let end = await catchUp();
      if (options.beforeSwap) await options.beforeSwap();
      for (let round = 0; round < (options.maxCatchUpRounds ?? 5); round++) {
        const before = end;
        end = await catchUp();
        if (lag(end, before) === 0) break;
      }

      // 3. Swap. 4. Catch up with the end as it is after the swap.
      await target.activate();
      swapped = true;
      phase = 'swapped';
      report();
      this.log.log({ version, previousVersion: target.previousVersion }, 'search index swapped to the new version');
      await catchUp();
      await subscription.stop();
      subscription = undefined;
    } catch (error) {
      failure = error;
      await subscription?.stop().catch(() => undefined);
      if (!swapped) await target.discard().catch(() => undefined);
      await target.close().catch(() => undefined);
      throw error;
    }

    phase = 'done';
    report();
    await target.close();
    // 5. Drop the old version.
    let oldDropped: Promise<void>;
    if (options.keepOld || target.previousVersion === undefined) {
      oldDropped = Promise.resolve();
    } else if ((options.dropOldAfterMs ?? 0) <= 0) {
      oldDropped = target.dropPrevious();
      await oldDropped.catch(() => undefined);
    } else {
      oldDropped = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => target.dropPrevious().then(resolve, reject), options.dropOldAfterMs);
        timer.unref?.();
      });
    }
    oldDropped.catch((error) => this.log.error({ reason: String(error) }, 'could not drop the old search index version'));
    return { version, previousVersion: target.previousVersion, events: done, oldDropped };
  }

  private async waitForGroup(topic: string, group: string, end: LogPosition, timeoutMs: number, failed: () => unknown): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (failed()) throw failed();
      if (reached(await this.eventLog.committedPosition(topic, group), end)) return;
      if (Date.now() > deadline) throw new Error(`OnlineSearchRebuild: ${group} did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
