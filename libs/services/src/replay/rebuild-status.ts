import type { RebuildPhase, RebuildRecord, Subscription, VersionedProjection } from '@engram/ports';

/**
 * An online rebuild's progress as `GET /v1/admin/rebuilds` and `engram rebuild --online` report it:
 * from the running rebuild's counters and samples in this process, or from its ledger record.
 */

/** What `GET /v1/admin/rebuilds` reports for one rebuild. */
export interface RebuildStatus {
  readonly projection: VersionedProjection;
  readonly version: number;
  readonly previousVersion: number;
  readonly phase: RebuildPhase;
  /** Messages of the input topic applied to the new version (its consumer group's committed offsets, plus the batch in flight). */
  readonly done: number;
  /** Messages in the input topic (grows while the live system writes). */
  readonly total: number;
  /** Over the last few seconds; 0 when not running in this process. */
  readonly eventsPerSecond: number;
  /** Seconds until the replay reaches the live end at the current rate; null when unknown or caught up. */
  readonly etaSeconds: number | null;
  /** True when this process runs the rebuild (else the numbers are the last persisted ones). */
  readonly running: boolean;
  readonly startedAt: string;
  readonly swappedAt?: string;
  readonly finishedAt?: string;
  readonly error?: string;
}

/** A rebuild this process runs. */
export interface Running {
  record: RebuildRecord;
  done: number;
  total: number;
  /** Messages of the topics read before the live one (a reprocess run's topic): fixed, counted in `total`. */
  fixed: number;
  samples: { at: number; done: number }[];
  subscription?: Subscription;
  failure?: unknown;
  /** Resolves once the rebuild finished, failed or was interrupted. */
  finished: Promise<RebuildRecord>;
}

/** Thrown inside a rebuild when the process shuts down: the rebuild stops where it is and resumes at the next start. */
export class RebuildInterrupted extends Error {
  constructor() {
    super('interrupted by shutdown');
  }
}

/** A rebuild of the projection is already running. */
export class RebuildConflict extends Error {
  constructor(
    readonly projection: VersionedProjection,
    message = `a ${projection} rebuild is already running`,
  ) {
    super(message);
  }
}

/** Records how far the rebuild is now; the rate is measured over the last five seconds. */
export function sample(running: Running): void {
  const now = Date.now();
  running.samples.push({ at: now, done: running.done });
  while (running.samples.length > 2 && now - running.samples[0].at > 5000) running.samples.shift();
}

export function runningStatus(running: Running): RebuildStatus {
  const first = running.samples[0];
  const last = running.samples[running.samples.length - 1];
  const seconds = first && last ? (last.at - first.at) / 1000 : 0;
  const eventsPerSecond = seconds > 0 ? Math.round((last.done - first.done) / seconds) : 0;
  const remaining = Math.max(0, running.total - running.done);
  const { record } = running;
  return {
    projection: record.projection,
    version: record.version,
    previousVersion: record.previousVersion,
    phase: record.phase,
    done: running.done,
    total: Math.max(running.total, running.done),
    eventsPerSecond,
    etaSeconds: remaining === 0 ? 0 : eventsPerSecond > 0 ? Math.ceil(remaining / eventsPerSecond) : null,
    running: true,
    startedAt: record.startedAt,
    ...(record.swappedAt ? { swappedAt: record.swappedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
  };
}

/** A rebuild not running in this process: the numbers its record last persisted. */
export function recordedStatus(record: RebuildRecord): RebuildStatus {
  return {
    projection: record.projection,
    version: record.version,
    previousVersion: record.previousVersion,
    phase: record.phase,
    done: record.done ?? 0,
    total: Math.max(record.done ?? 0, record.phase === 'done' ? (record.done ?? 0) : 0),
    eventsPerSecond: 0,
    etaSeconds: null,
    running: false,
    startedAt: record.startedAt,
    ...(record.swappedAt ? { swappedAt: record.swappedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
}
