import type { MemoryRecord } from '@engram/contracts';
import { glossesAName } from '@engram/domain';
import type { FactStore, MemoryQuery, MemorySelection, UserPage, UserRef } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import { type Database, immediate, tableNamespace } from './sqlite-database';

export interface SqliteFactStoreOptions {
  /** Table prefix for a projection version, e.g. `v2_` while rebuilding. */
  readonly namespace?: string;
}

/**
 * The facts projection in SQLite: the queried fields as columns, the whole
 * record as JSON. Writes are conditional on revision, so replays are no-ops.
 * `glosses` is 1 for a memory that glosses a name (`glossesAName`), under a
 * partial index: a user's learned aliases are read from those rows alone.
 */
export class SqliteFactStore implements FactStore {
  private readonly table: string;
  private readonly statements: {
    upsert: BetterSqlite3.Statement<[string, string, string, string, string, number, number, number, number, number, string]>;
    get: BetterSqlite3.Statement<[string, string, string], { record: string }>;
    byMergeKeys: BetterSqlite3.Statement<[string, string, string], { record: string }>;
    select: BetterSqlite3.Statement<[string, string, string, string, number], { record: string }>;
    glossing: BetterSqlite3.Statement<[string, string], { record: string }>;
    deleteUser: BetterSqlite3.Statement<[string, string]>;
    truncate: BetterSqlite3.Statement<[]>;
  };
  private readonly saveTx: (records: readonly MemoryRecord[]) => void;
  /** `list`'s statements by filter (four shapes at most): prepared once, not on every call (the resolver lists a user per batch). */
  private readonly listStatements = new Map<string, BetterSqlite3.Statement<unknown[], { record: string }>>();

  constructor(
    private readonly db: Database,
    options: SqliteFactStoreOptions = {},
  ) {
    const t = (this.table = `${tableNamespace(options.namespace)}facts`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${t} (
        tenant_id  TEXT    NOT NULL,
        user_id    TEXT    NOT NULL,
        memory_id  TEXT    NOT NULL,
        merge_key  TEXT    NOT NULL,
        status     TEXT    NOT NULL,
        pinned     INTEGER NOT NULL,
        revision   INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        glosses    INTEGER NOT NULL DEFAULT 0,
        record     TEXT    NOT NULL,
        PRIMARY KEY (tenant_id, user_id, memory_id),
        UNIQUE (tenant_id, user_id, merge_key)
      );
      CREATE INDEX IF NOT EXISTS ${t}_by_created ON ${t} (tenant_id, user_id, created_ms);
    `);
    markGlossingRows(db, t);
    db.exec(`CREATE INDEX IF NOT EXISTS ${t}_glossing ON ${t} (tenant_id, user_id, created_ms) WHERE glosses = 1`);
    this.statements = {
      upsert: db.prepare(
        `INSERT INTO ${t} (tenant_id, user_id, memory_id, merge_key, status, pinned, revision, created_ms, updated_ms, glosses, record)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, user_id, memory_id) DO UPDATE SET
           merge_key = excluded.merge_key, status = excluded.status, pinned = excluded.pinned,
           revision = excluded.revision, created_ms = excluded.created_ms, updated_ms = excluded.updated_ms,
           glosses = excluded.glosses, record = excluded.record
         WHERE excluded.revision > ${t}.revision`,
      ),
      get: db.prepare(
        `SELECT record FROM ${t} WHERE tenant_id = ? AND user_id = ? AND memory_id IN (SELECT value FROM json_each(?))
         ORDER BY created_ms, memory_id`,
      ),
      byMergeKeys: db.prepare(
        `SELECT record FROM ${t} WHERE tenant_id = ? AND user_id = ? AND merge_key IN (SELECT value FROM json_each(?))
         ORDER BY created_ms, memory_id`,
      ),
      // Ids, merge keys, and the active pinned memories when the last parameter is 1.
      select: db.prepare(
        `SELECT record FROM ${t} WHERE tenant_id = ? AND user_id = ? AND (
           memory_id IN (SELECT value FROM json_each(?)) OR merge_key IN (SELECT value FROM json_each(?))
           OR (? = 1 AND pinned = 1 AND status = 'active'))
         ORDER BY created_ms, memory_id`,
      ),
      glossing: db.prepare(`SELECT record FROM ${t} WHERE tenant_id = ? AND user_id = ? AND glosses = 1 ORDER BY created_ms, memory_id`),
      deleteUser: db.prepare(`DELETE FROM ${t} WHERE tenant_id = ? AND user_id = ?`),
      truncate: db.prepare(`DELETE FROM ${t}`),
    };
    this.saveTx = immediate(db, (records: readonly MemoryRecord[]) => {
      for (const r of records) {
        this.statements.upsert.run(
          r.tenantId,
          r.userId,
          r.memoryId,
          r.mergeKey,
          r.status,
          r.pinned ? 1 : 0,
          r.revision,
          toMs(r.createdAt),
          toMs(r.updatedAt),
          glossesAName(r) ? 1 : 0,
          JSON.stringify(r),
        );
      }
    });
  }

  async save(records: readonly MemoryRecord[]): Promise<void> {
    if (records.length > 0) this.saveTx(records);
  }

  async get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<MemoryRecord[]> {
    if (memoryIds.length === 0) return [];
    return decode(this.statements.get.all(tenantId, userId, JSON.stringify(memoryIds)));
  }

  async findByMergeKeys(tenantId: string, userId: string, mergeKeys: readonly string[]): Promise<MemoryRecord[]> {
    if (mergeKeys.length === 0) return [];
    return decode(this.statements.byMergeKeys.all(tenantId, userId, JSON.stringify(mergeKeys)));
  }

  async list(query: MemoryQuery): Promise<MemoryRecord[]> {
    if (query.statuses && query.statuses.length === 0) return [];
    // The filters are optional: a statement per combination of them.
    const where = ['tenant_id = ?', 'user_id = ?'];
    const params: (string | number)[] = [query.tenantId, query.userId];
    if (query.statuses) {
      where.push('status IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(query.statuses));
    }
    if (query.pinned !== undefined) {
      where.push('pinned = ?');
      params.push(query.pinned ? 1 : 0);
    }
    return decode(this.listStatement(where.join(' AND ')).all(...params));
  }

  async select(selection: MemorySelection): Promise<MemoryRecord[]> {
    const ids = selection.memoryIds ?? [];
    const keys = selection.mergeKeys ?? [];
    if (ids.length === 0 && keys.length === 0 && !selection.pinned) return [];
    const { tenantId, userId } = selection;
    return decode(this.statements.select.all(tenantId, userId, JSON.stringify(ids), JSON.stringify(keys), selection.pinned ? 1 : 0));
  }

  async glossing(tenantId: string, userId: string): Promise<MemoryRecord[]> {
    return decode(this.statements.glossing.all(tenantId, userId));
  }

  private listStatement(where: string): BetterSqlite3.Statement<unknown[], { record: string }> {
    let statement = this.listStatements.get(where);
    if (!statement) {
      statement = this.db.prepare(`SELECT record FROM ${this.table} WHERE ${where} ORDER BY created_ms, memory_id`);
      this.listStatements.set(where, statement);
    }
    return statement;
  }

  async listUsers(users: readonly UserRef[]): Promise<MemoryRecord[]> {
    // In-process: a query per user costs no round trip, and each is served by the user's index.
    const seen = new Set<string>();
    const records: MemoryRecord[] = [];
    for (const { tenantId, userId } of users) {
      const key = `${tenantId}\u0000${userId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(...(await this.list({ tenantId, userId })));
    }
    return records;
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    this.statements.deleteUser.run(tenantId, userId);
  }

  async users(): Promise<{ tenantId: string; userId: string }[]> {
    return this.db
      .prepare<[], { tenantId: string; userId: string }>(
        `SELECT DISTINCT tenant_id AS tenantId, user_id AS userId FROM ${this.table} ORDER BY tenant_id, user_id`,
      )
      .all();
  }

  async usersOf(tenantId: string, page: UserPage): Promise<string[]> {
    return this.db
      .prepare<[string, string, number], { userId: string }>(
        `SELECT DISTINCT user_id AS userId FROM ${this.table} WHERE tenant_id = ? AND user_id > ? ORDER BY user_id LIMIT ?`,
      )
      .all(tenantId, page.after ?? '', page.limit)
      .map((row) => row.userId);
  }

  async truncate(): Promise<void> {
    this.statements.truncate.run();
  }
}

/**
 * A table from before `glosses` gets the column, and its glossing rows are marked, once, in one
 * transaction (each row's text is read: seconds at a million memories).
 */
function markGlossingRows(db: Database, table: string): void {
  const marked = () =>
    db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .some((column) => column.name === 'glosses');
  if (marked()) return;
  immediate(db, () => {
    if (marked()) return; // another process on the same file did it first
    db.exec(`ALTER TABLE ${table} ADD COLUMN glosses INTEGER NOT NULL DEFAULT 0`);
    // Marked once the read is done (no statement may run while another iterates): few rows gloss.
    const glossing: number[] = [];
    for (const row of db.prepare<[], { rowid: number; record: string }>(`SELECT rowid, record FROM ${table}`).iterate()) {
      if (glossesAName(JSON.parse(row.record) as MemoryRecord)) glossing.push(row.rowid);
    }
    const mark = db.prepare<[number]>(`UPDATE ${table} SET glosses = 1 WHERE rowid = ?`);
    for (const rowid of glossing) mark.run(rowid);
  })();
}

function decode(rows: readonly { record: string }[]): MemoryRecord[] {
  return rows.map((row) => JSON.parse(row.record) as MemoryRecord);
}

function toMs(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 0;
}
