import { type MasterKey, masterKeyOf, newDataKey, rewrapDataKey, unwrapDataKey, wrapDataKey, type WrappedDataKey } from '@engram/domain';
import type { DataKey, KeyStore, RewrapOptions, RewrapResult, UserRef } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './sqlite-database';

interface KeyRow {
  key_id: string;
  wrapped: string;
  master: string;
}

interface OwnedKeyRow extends KeyRow {
  tenant_id: string;
  user_id: string;
}

/** Users whose unwrapped key is kept beside its row at most (all dropped at once past it). */
const MAX_UNWRAPPED = 10_000;

const userOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

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
    masters: BetterSqlite3.Statement<[], { master: string; keys: number }>;
    notUnder: BetterSqlite3.Statement<[string, number], OwnedKeyRow>;
    rewrap: BetterSqlite3.Statement<[string, string, string, string, string, string]>;
  };

  /**
   * The key last unwrapped per user, with the row it came from: while the row is the same, reading
   * it again (each key ring refreshes every user it holds every few seconds) returns the same key
   * without unwrapping it again, and the same object, whose imported cipher key is reused. Dropped
   * as soon as a read finds the row gone or changed, and on destroy.
   */
  private readonly unwrapped = new Map<string, { readonly wrapped: string; readonly master: string; readonly key: DataKey }>();

  /**
   * @param master wraps new keys (ENGRAM_MASTER_KEY)
   * @param previous only unwrap keys still wrapped by them, during a rotation (ENGRAM_PREVIOUS_MASTER_KEY)
   */
  constructor(
    private readonly db: Database,
    private readonly master: MasterKey,
    private readonly previous: readonly MasterKey[] = [],
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
      masters: db.prepare('SELECT master, COUNT(*) AS keys FROM data_keys GROUP BY master'),
      notUnder: db.prepare(
        'SELECT tenant_id, user_id, key_id, wrapped, master FROM data_keys WHERE master <> ? ORDER BY tenant_id, user_id LIMIT ?',
      ),
      // Only the key that was read, still under the master key it was read under: a key destroyed
      // (or destroyed and made anew) meanwhile is left as it is.
      rewrap: db.prepare('UPDATE data_keys SET wrapped = ?, master = ? WHERE tenant_id = ? AND user_id = ? AND key_id = ? AND master = ?'),
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
    const user = userOf(tenantId, userId);
    const row = this.statements.get.get(tenantId, userId);
    if (!row) {
      this.unwrapped.delete(user);
      return undefined;
    }
    const known = this.unwrapped.get(user);
    if (known && known.wrapped === row.wrapped && known.master === row.master && known.key.keyId === row.key_id) return known.key;
    const stored: WrappedDataKey = { keyId: row.key_id, wrapped: row.wrapped, master: row.master };
    const key = unwrapDataKey(this.master, tenantId, userId, stored, this.previous);
    if (this.unwrapped.size >= MAX_UNWRAPPED) this.unwrapped.clear();
    this.unwrapped.set(user, { wrapped: row.wrapped, master: row.master, key });
    return key;
  }

  async getMany(users: readonly UserRef[]): Promise<(DataKey | undefined)[]> {
    // In-process reads: one statement a user costs no round trip.
    return Promise.all(users.map(({ tenantId, userId }) => this.get(tenantId, userId)));
  }

  async destroy(tenantId: string, userId: string): Promise<void> {
    this.unwrapped.delete(userOf(tenantId, userId));
    if (this.statements.delete.run(tenantId, userId).changes === 0) return;
    this.checkpoint();
  }

  async rewrapAll(options: RewrapOptions = {}): Promise<RewrapResult> {
    const batchSize = Math.max(1, options.batchSize ?? 500);
    let total = 0;
    for (const { master, keys } of this.statements.masters.all()) {
      if (master === this.master.fingerprint) continue;
      masterKeyOf({ master }, this.master, this.previous); // refuses before anything changes
      total += keys;
    }
    let rewrapped = 0;
    const rewrapBatch = this.db.transaction((rows: readonly OwnedKeyRow[]) => {
      let changed = 0;
      for (const row of rows) {
        const stored: WrappedDataKey = { keyId: row.key_id, wrapped: row.wrapped, master: row.master };
        const next = rewrapDataKey(this.master, this.previous, row.tenant_id, row.user_id, stored);
        changed += this.statements.rewrap.run(next.wrapped, next.master, row.tenant_id, row.user_id, row.key_id, row.master).changes;
      }
      return changed;
    });
    for (;;) {
      const rows = this.statements.notUnder.all(this.master.fingerprint, batchSize);
      if (rows.length === 0) break;
      rewrapped += rewrapBatch.immediate(rows);
      options.onProgress?.(rewrapped, total);
    }
    // The old wrappings were overwritten in place (secure_delete): leave no copy in the WAL either.
    if (rewrapped > 0) this.checkpoint();
    return { rewrapped, total };
  }

  private checkpoint(): void {
    // Readers in other processes can keep old frames alive; then the next checkpoint overwrites them.
    if (this.db.pragma('journal_mode', { simple: true }) === 'wal') this.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
