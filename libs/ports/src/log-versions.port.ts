/**
 * Which version of the event log's topics engram reads and writes. Version 1 is the topics as
 * named (`memory.turns.v1`); `engram encrypt-log` copies every topic, every payload sealed, into
 * the next version (`memory.turns.v1.log2`, see `versionedTopic`) and switches to it. While that
 * runs, the state records the migration: processes refuse to write, and a second run refuses to
 * start (docs/security.md).
 */
export const LogVersions = Symbol('LogVersions');

export interface LogVersionState {
  /** The version live processes use: 1 until a migration switched. */
  readonly version: number;
  /** Bumped by every write; `replace` compares it. 0: never written. */
  readonly revision: number;
  readonly migration?: LogMigration;
}

export interface LogMigration {
  readonly runId: string;
  readonly from: number;
  readonly to: number;
  /**
   * `copying`: topics of `to` are being written and checked; nothing may write to `from`.
   * `switched`: `version` is `to`; the topics of `from` are being deleted.
   */
  readonly phase: 'copying' | 'switched';
  readonly startedAt: string;
  /** The process running it; null once it stopped (failed or interrupted): a rerun resumes at once. */
  readonly owner: { readonly host: string; readonly pid: number } | null;
  /** Renewed while it runs: a run whose heartbeat is old has died and is taken over. */
  readonly heartbeatAt: string;
}

export interface LogVersions {
  read(): Promise<LogVersionState>;
  /**
   * Writes `next` (at revision `expectedRevision + 1`) if the stored state is still at
   * `expectedRevision`; false, changing nothing, if another writer came first.
   */
  replace(expectedRevision: number, next: Omit<LogVersionState, 'revision'>): Promise<boolean>;
}

export const INITIAL_LOG_VERSION: LogVersionState = { version: 1, revision: 0 };
