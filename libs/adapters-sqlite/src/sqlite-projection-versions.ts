import {
  followActiveVersion,
  type FactStore,
  type ProjectionVersions,
  type RebuildLedger,
  type RebuildRecord,
  type SearchBackendAdapters,
  type SearchIndex,
  type SessionStore,
  type VersionedProjection,
} from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './sqlite-database';
import { SqliteFactStore } from './sqlite-fact-store.adapter';
import { SqliteSearchIndex } from './sqlite-search-index.adapter';
import { SqliteSessionStore } from './sqlite-session-store.adapter';
import { vectorCacheFor } from './sqlite-vector-cache';

/**
 * Table prefix of a projection version: version 1 keeps the unprefixed names
 * data directories had before versioning (`facts`), later ones are `v2_facts`, …
 */
export function sqliteVersionNamespace(version: number): string {
  if (!Number.isInteger(version) || version < 1) throw new Error(`invalid projection version ${version}`);
  return version === 1 ? '' : `v${version}_`;
}

function ensurePointerTables(db: Database): void {
  // One row per (projection, version) whose tables exist; `active` = 1 on the one readers use.
  // No row marked active = version 1 (a data directory from before versioning).
  db.exec(`
    CREATE TABLE IF NOT EXISTS projection_versions (
      projection TEXT    NOT NULL,
      version    INTEGER NOT NULL,
      active     INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (projection, version)
    );
    CREATE TABLE IF NOT EXISTS projection_rebuilds (
      projection TEXT    NOT NULL,
      version    INTEGER NOT NULL,
      record     TEXT    NOT NULL,
      PRIMARY KEY (projection, version)
    );
  `);
}

interface SqliteVersionedKind<S> {
  readonly projection: VersionedProjection;
  create(db: Database, namespace: string): S;
  /** Tables of a version, dropped by `drop` (FTS5 shadow tables go with their virtual table). */
  tables(namespace: string): readonly string[];
  dropped?(namespace: string): void;
}

/**
 * Versions of one projection in the SQLite file. The pointer is a row of
 * `projection_versions`, read on every call by `followActiveVersion` (a
 * primary-key lookup, microseconds), so other processes on the same file see a
 * swap at once. Activation is one transaction.
 */
export class SqliteProjectionVersions<S> implements ProjectionVersions<S> {
  /** Activations through this instance (followers in this process refresh on a change). */
  activations = 0;
  readonly projection: VersionedProjection;
  private readonly stores = new Map<number, S>();
  private readonly statements: {
    active: BetterSqlite3.Statement<[string], number>;
    known: BetterSqlite3.Statement<[string], number>;
    register: BetterSqlite3.Statement<[string, number]>;
    deactivate: BetterSqlite3.Statement<[string]>;
    activate: BetterSqlite3.Statement<[string, number]>;
    forget: BetterSqlite3.Statement<[string, number]>;
  };
  private readonly activateTx: BetterSqlite3.Transaction<(version: number) => void>;

  constructor(
    private readonly db: Database,
    private readonly kind: SqliteVersionedKind<S>,
  ) {
    this.projection = kind.projection;
    ensurePointerTables(db);
    this.statements = {
      active: db.prepare<[string], number>('SELECT version FROM projection_versions WHERE projection = ? AND active = 1').pluck(),
      known: db.prepare<[string], number>('SELECT version FROM projection_versions WHERE projection = ? ORDER BY version').pluck(),
      register: db.prepare('INSERT OR IGNORE INTO projection_versions (projection, version, active) VALUES (?, ?, 0)'),
      deactivate: db.prepare('UPDATE projection_versions SET active = 0 WHERE projection = ?'),
      activate: db.prepare(
        `INSERT INTO projection_versions (projection, version, active) VALUES (?, ?, 1)
         ON CONFLICT (projection, version) DO UPDATE SET active = 1`,
      ),
      forget: db.prepare('DELETE FROM projection_versions WHERE projection = ? AND version = ?'),
    };
    this.activateTx = db.transaction((version: number) => {
      this.statements.deactivate.run(this.projection);
      this.statements.activate.run(this.projection, version);
    });
  }

  async active(): Promise<number> {
    return this.statements.active.get(this.projection) ?? 1;
  }

  async open(version: number): Promise<S> {
    const namespace = sqliteVersionNamespace(version);
    let store = this.stores.get(version);
    if (!store) {
      store = this.kind.create(this.db, namespace);
      this.statements.register.run(this.projection, version);
      this.stores.set(version, store);
    }
    return store;
  }

  async activate(version: number): Promise<void> {
    await this.open(version);
    this.activateTx.immediate(version);
    this.activations++;
  }

  async drop(version: number): Promise<void> {
    if ((await this.active()) === version)
      throw new Error(`${this.projection} version ${version} is active: activate another one before dropping it`);
    const namespace = sqliteVersionNamespace(version);
    this.db
      .transaction(() => {
        for (const table of this.kind.tables(namespace)) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
        this.statements.forget.run(this.projection, version);
      })
      .immediate();
    this.stores.delete(version);
    this.kind.dropped?.(namespace);
  }

  async list(): Promise<number[]> {
    const versions = new Set(this.statements.known.all(this.projection));
    // Version 1's tables predate the pointer table in old data directories.
    if (this.kind.tables('').some((table) => this.tableExists(table))) versions.add(1);
    return [...versions].sort((a, b) => a - b);
  }

  private tableExists(name: string): boolean {
    return this.db.prepare<[string], number>("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name)! > 0;
  }
}

export function sqliteFactStoreVersions(db: Database): SqliteProjectionVersions<FactStore> {
  return new SqliteProjectionVersions<FactStore>(db, {
    projection: 'facts',
    create: (d, namespace) => new SqliteFactStore(d, { namespace }),
    tables: (namespace) => [`${namespace}facts`],
  });
}

export function sqliteSessionStoreVersions(db: Database): SqliteProjectionVersions<SessionStore> {
  return new SqliteProjectionVersions<SessionStore>(db, {
    projection: 'sessions',
    create: (d, namespace) => new SqliteSessionStore(d, { namespace }),
    tables: (namespace) => [`${namespace}session_turns`],
  });
}

export function sqliteSearchIndexVersions(
  db: Database,
  options: { vectorCacheBytes?: number } = {},
): SqliteProjectionVersions<SearchIndex> {
  return new SqliteProjectionVersions<SearchIndex>(db, {
    projection: 'search',
    create: (d, namespace) => new SqliteSearchIndex(d, { namespace, ...options }),
    tables: (namespace) => [
      `${namespace}search_postings`,
      `${namespace}search_term_counts`,
      `${namespace}search_totals`,
      `${namespace}search_documents`,
      // The FTS5 table of the layout before per-user postings, if it was never opened since.
      `${namespace}search_terms`,
    ],
    // A dropped version's decoded vectors must not outlive its tables.
    dropped: (namespace) => vectorCacheFor(db, `${namespace}search_documents`, 0).clear(),
  });
}

/**
 * The search backend on the SQLite file: FTS5 and vectors, versioned like the fact store's tables;
 * the live index reads the pointer row on every call, so other processes on the file see a swap at once.
 */
export function sqliteSearch(db: Database, options: { vectorCacheBytes?: number } = {}): SearchBackendAdapters {
  const versions = sqliteSearchIndexVersions(db, options);
  return { index: followActiveVersion(versions), versions };
}

/** Rebuild records in the SQLite file, next to the pointer. */
export class SqliteRebuildLedger implements RebuildLedger {
  constructor(private readonly db: Database) {
    ensurePointerTables(db);
  }

  async save(record: RebuildRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO projection_rebuilds (projection, version, record) VALUES (?, ?, ?)
         ON CONFLICT (projection, version) DO UPDATE SET record = excluded.record`,
      )
      .run(record.projection, record.version, JSON.stringify(record));
  }

  async list(): Promise<RebuildRecord[]> {
    return this.db
      .prepare<[], string>('SELECT record FROM projection_rebuilds ORDER BY rowid')
      .pluck()
      .all()
      .map((json) => JSON.parse(json) as RebuildRecord);
  }
}
