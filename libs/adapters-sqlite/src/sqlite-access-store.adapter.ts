import type { AccessStats, AccessStore } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import { type Database, immediate, tableNamespace } from './sqlite-database';

export interface SqliteAccessStoreOptions {
  /** Table prefix for a projection version, e.g. `v2_` while rebuilding. */
  readonly namespace?: string;
}

interface StatsRow {
  memory_id: string;
  hits: number;
  last_access_at: string;
}

/** Access statistics: hit counts and last access, counted once per access event. */
export class SqliteAccessStore implements AccessStore {
  private readonly statements: {
    markProcessed: BetterSqlite3.Statement<[string, string, string]>;
    bump: BetterSqlite3.Statement<[string, string, string, string, number]>;
    get: BetterSqlite3.Statement<[string, string, string], StatsRow>;
    deleteStats: BetterSqlite3.Statement<[string, string]>;
    deleteEvents: BetterSqlite3.Statement<[string, string]>;
    truncateStats: BetterSqlite3.Statement<[]>;
    truncateEvents: BetterSqlite3.Statement<[]>;
  };
  private readonly recordTx: (eventId: string, tenantId: string, userId: string, ids: readonly string[], at: string) => void;
  private readonly deleteUserTx: (tenantId: string, userId: string) => void;
  private readonly truncateTx: () => void;

  constructor(db: Database, options: SqliteAccessStoreOptions = {}) {
    const ns = tableNamespace(options.namespace);
    const events = `${ns}access_events`;
    const stats = `${ns}access_stats`;
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${events} (
        event_id  TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        user_id   TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS ${events}_by_user ON ${events} (tenant_id, user_id);
      CREATE TABLE IF NOT EXISTS ${stats} (
        tenant_id      TEXT    NOT NULL,
        user_id        TEXT    NOT NULL,
        memory_id      TEXT    NOT NULL,
        hits           INTEGER NOT NULL,
        last_access_at TEXT    NOT NULL,
        last_access_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, user_id, memory_id)
      ) WITHOUT ROWID;
    `);
    this.statements = {
      markProcessed: db.prepare(`INSERT OR IGNORE INTO ${events} (event_id, tenant_id, user_id) VALUES (?, ?, ?)`),
      bump: db.prepare(
        `INSERT INTO ${stats} (tenant_id, user_id, memory_id, hits, last_access_at, last_access_ms)
         VALUES (?, ?, ?, 1, ?, ?)
         ON CONFLICT (tenant_id, user_id, memory_id) DO UPDATE SET
           hits = hits + 1,
           last_access_at = CASE WHEN excluded.last_access_ms > last_access_ms THEN excluded.last_access_at ELSE last_access_at END,
           last_access_ms = MAX(last_access_ms, excluded.last_access_ms)`,
      ),
      get: db.prepare(
        `SELECT memory_id, hits, last_access_at FROM ${stats}
         WHERE tenant_id = ? AND user_id = ? AND memory_id IN (SELECT value FROM json_each(?))`,
      ),
      deleteStats: db.prepare(`DELETE FROM ${stats} WHERE tenant_id = ? AND user_id = ?`),
      deleteEvents: db.prepare(`DELETE FROM ${events} WHERE tenant_id = ? AND user_id = ?`),
      truncateStats: db.prepare(`DELETE FROM ${stats}`),
      truncateEvents: db.prepare(`DELETE FROM ${events}`),
    };
    this.recordTx = immediate(db, (eventId, tenantId, userId, ids, at) => {
      if (this.statements.markProcessed.run(eventId, tenantId, userId).changes === 0) return; // seen: a replay
      const ms = Date.parse(at);
      for (const memoryId of new Set(ids)) {
        this.statements.bump.run(tenantId, userId, memoryId, at, Number.isFinite(ms) ? ms : 0);
      }
    });
    // Forgetting a user also drops which of their events were seen: a later replay meets the UserForgotten event again.
    this.deleteUserTx = immediate(db, (tenantId: string, userId: string) => {
      this.statements.deleteStats.run(tenantId, userId);
      this.statements.deleteEvents.run(tenantId, userId);
    });
    this.truncateTx = immediate(db, () => {
      this.statements.truncateStats.run();
      this.statements.truncateEvents.run();
    });
  }

  async record(eventId: string, tenantId: string, userId: string, memoryIds: readonly string[], at: string): Promise<void> {
    this.recordTx(eventId, tenantId, userId, memoryIds, at);
  }

  async get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, AccessStats>> {
    const result = new Map<string, AccessStats>();
    if (memoryIds.length === 0) return result;
    for (const row of this.statements.get.all(tenantId, userId, JSON.stringify(memoryIds))) {
      result.set(row.memory_id, { memoryId: row.memory_id, hits: row.hits, lastAccessAt: row.last_access_at });
    }
    return result;
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    this.deleteUserTx(tenantId, userId);
  }

  async truncate(): Promise<void> {
    this.truncateTx();
  }
}
