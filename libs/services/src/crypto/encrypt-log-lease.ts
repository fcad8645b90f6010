// encrypt-log's hold on the log: a lease in LogVersions (claimed by compare-and-set, renewed by a
// heartbeat), so a second run refuses and the run of a process that died is taken over.
import type { Logger } from '@nestjs/common';
import * as os from 'node:os';
import type { LogMigration, LogVersions, LogVersionState } from '@engram/ports';
import { EncryptLogConflict } from './encrypt-log.types';

/** How long a run's heartbeat is trusted: older, the run has died and the next one takes over. */
const LEASE_MS = 30_000;
const HEARTBEAT_MS = 5_000;

export async function claimLog(versions: LogVersions, log: Logger): Promise<Lease> {
  const owner = { host: os.hostname(), pid: process.pid };
  const state = await versions.read();
  const now = new Date().toISOString();
  let claimed: LogMigration;
  let resumed = false;
  if (state.migration) {
    if (alive(state.migration)) throw new EncryptLogConflict(runningMessage(state.migration));
    claimed = { ...state.migration, owner, heartbeatAt: now };
    resumed = true;
  } else {
    const runId = `v${state.version + 1}-${now.replace(/[-:.]/g, '').toLowerCase()}`;
    claimed = { runId, from: state.version, to: state.version + 1, phase: 'copying', startedAt: now, owner, heartbeatAt: now };
  }
  const next = { version: state.version, migration: claimed };
  if (!(await versions.replace(state.revision, next)))
    throw new EncryptLogConflict('another engram encrypt-log started at the same moment: it runs, this one stops');
  if (resumed) log.log({ runId: claimed.runId, phase: claimed.phase }, 'encrypt-log: resuming an interrupted run');
  return new Lease(versions, { ...next, revision: state.revision + 1 }, resumed);
}

/** A run that holds the log: its process is alive (same host), or its heartbeat is recent. */
export function alive(migration: LogMigration): boolean {
  if (!migration.owner) return false;
  if (migration.owner.host === os.hostname()) {
    try {
      process.kill(migration.owner.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    }
  }
  return Date.now() - Date.parse(migration.heartbeatAt) < LEASE_MS;
}

export function runningMessage(migration: LogMigration): string {
  return `engram encrypt-log run ${migration.runId} is running (pid ${migration.owner?.pid} on ${migration.owner?.host}, last seen ${migration.heartbeatAt}): wait for it; if it died, run again after ${LEASE_MS / 1000} s`;
}

/** The run's hold on the log: every write compares the revision it last wrote; a heartbeat renews it. */
export class Lease {
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<unknown> = Promise.resolve();
  private lost: Error | undefined;
  /** No more heartbeats: the run wrote its last state, or stopped. */
  private over = false;

  constructor(
    private readonly versions: LogVersions,
    public state: LogVersionState & { readonly migration: LogMigration },
    readonly resumed: boolean,
  ) {
    this.timer = setInterval(() => void this.renew().catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Writes the next state (with the migration, or without it once done); fails if another run took the log. */
  write(next: Omit<LogVersionState, 'revision'>): Promise<void> {
    return this.enqueue(async () => {
      await this.replace(next);
      if (!next.migration) this.over = true;
    });
  }

  /** Failed or interrupted: a rerun may resume at once. */
  release(): Promise<void> {
    this.over = true;
    return this.enqueue(() => this.replace({ version: this.state.version, migration: { ...this.state.migration, owner: null } })).catch(
      () => undefined,
    );
  }

  /** Refused before anything was copied: the log is as it was, and writable again. */
  rollBack(): Promise<void> {
    this.over = true;
    return this.enqueue(() => this.replace({ version: this.state.version })).catch(() => undefined);
  }

  stop(): void {
    this.over = true;
    clearInterval(this.timer);
  }

  private renew(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.over)
        await this.replace({ version: this.state.version, migration: { ...this.state.migration, heartbeatAt: new Date().toISOString() } });
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.writing.then(step);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async replace(next: Omit<LogVersionState, 'revision'>): Promise<void> {
    if (this.lost) throw this.lost;
    if (!(await this.versions.replace(this.state.revision, next))) {
      this.lost = new EncryptLogConflict(
        `run ${this.state.migration.runId} lost its hold on the log (another run took it over): it stopped`,
      );
      throw this.lost;
    }
    this.state = { ...this.state, ...next, revision: this.state.revision + 1, migration: next.migration ?? this.state.migration };
  }
}
