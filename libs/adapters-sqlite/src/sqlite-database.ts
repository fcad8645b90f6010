import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;

export interface SqliteDatabaseOptions {
  /**
   * NORMAL (default) in WAL mode survives a process crash but may lose the last
   * transactions on power loss; FULL also survives power loss, at a cost per commit.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** How long a writer waits for another process's lock (the CLI) before SQLITE_BUSY. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the one connection every SQLite adapter of the process shares.
 * better-sqlite3 is synchronous, so one connection serialises all work without
 * lock contention; other processes (the CLI) see it through WAL.
 */
export function openSqliteDatabase(file: string, options: SqliteDatabaseOptions = {}): Database {
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the same mode.
    writeFileSync(file, '', { mode: 0o600, flag: 'a' });
  }
  const db = new BetterSqlite3(file);
  if (!inMemory) {
    db.pragma('journal_mode = WAL');
    // A data directory from before: narrow what it already has.
    for (const each of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(each)) chmodSync(each, 0o600);
  }
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  db.pragma('foreign_keys = ON');
  // Deleted rows (a forgotten user's projections, a destroyed data key) are overwritten with
  // zeros, not left readable in free pages (docs/security.md).
  db.pragma('secure_delete = ON');
  return db;
}

/** Table-name prefix for a projection version (`v2_`), so a rebuild can run beside the live one. */
export function tableNamespace(namespace: string | undefined): string {
  const ns = namespace ?? '';
  if (!/^[A-Za-z0-9_]*$/.test(ns)) {
    throw new Error(`invalid SQLite table namespace "${ns}": use letters, digits and underscores only`);
  }
  return ns;
}

/** Runs `work` in a BEGIN IMMEDIATE transaction: a writer never has to upgrade a read lock (no SQLITE_BUSY deadlock with another process). */
export function immediate<A extends unknown[], R>(db: Database, work: (...args: A) => R): (...args: A) => R {
  const tx = db.transaction(work);
  return (...args: A) => tx.immediate(...args);
}
