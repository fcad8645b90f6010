import { type MasterKey, newDataKey, unwrapDataKey, wrapDataKey, type WrappedDataKey } from '@engram/domain';
import type { DataKey, KeyStore } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './sqlite-database';

interface KeyRow {
  key_id: string;
  wrapped: string;
  master: string;
}

/**
 * The embedded key store: one row per (tenant, user) in the engram database, the data key wrapped
 * by the master key. Destroying deletes the row; `secure_delete` (every connection engram opens)
 * zeroes the freed bytes and a WAL checkpoint then truncates the log, so no copy of the wrapped
 * key stays in the file or its write-ahead log.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly statements: {
    insert: BetterSqlite3.Statement<[string, string, string, string, string]>;
    get: BetterSqlite3.Statement<[string, string], KeyRow>;
    delete: BetterSqlite3.Statement<[string, string]>;
  };

  constructor(
    private readonly db: Database,
    private readonly master: MasterKey,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS data_keys (
        tenant_id TEXT NOT NULL,
        user_id   TEXT NOT NULL,
        key_id    TEXT NOT NULL,
        wrapped   TEXT NOT NULL,
        master    TEXT NOT NULL,
        PRIMARY KEY (tenant_id, user_id)
      ) WITHOUT ROWID;
    `);
    this.statements = {
      insert: db.prepare(
        'INSERT INTO data_keys (tenant_id, user_id, key_id, wrapped, master) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, user_id) DO NOTHING',
      ),
      get: db.prepare('SELECT key_id, wrapped, master FROM data_keys WHERE tenant_id = ? AND user_id = ?'),
      delete: db.prepare('DELETE FROM data_keys WHERE tenant_id = ? AND user_id = ?'),
    };
  }

  async getOrCreate(tenantId: string, userId: string): Promise<DataKey> {
    const existing = await this.get(tenantId, userId);
    if (existing) return existing;
    // Another process may insert first: the conflict keeps its key, and the read returns it.
    const stored = wrapDataKey(this.master, tenantId, userId, newDataKey());
    this.statements.insert.run(tenantId, userId, stored.keyId, stored.wrapped, stored.master);
    return (await this.get(tenantId, userId))!;
  }

  async get(tenantId: string, userId: string): Promise<DataKey | undefined> {
    const row = this.statements.get.get(tenantId, userId);
    if (!row) return undefined;
    const stored: WrappedDataKey = { keyId: row.key_id, wrapped: row.wrapped, master: row.master };
    return unwrapDataKey(this.master, tenantId, userId, stored);
  }

  async destroy(tenantId: string, userId: string): Promise<void> {
    if (this.statements.delete.run(tenantId, userId).changes === 0) return;
    // Readers in other processes can keep old frames alive; then the next checkpoint overwrites them.
    if (this.db.pragma('journal_mode', { simple: true }) === 'wal') this.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
