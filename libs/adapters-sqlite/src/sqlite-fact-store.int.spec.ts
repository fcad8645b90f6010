import { aMemoryRecord, makeTempDir, testFactStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteFactStore } from './sqlite-fact-store.adapter';

const dir = makeTempDir('engram-facts-');
const db = openSqliteDatabase(dir.file('engram.db'));

testFactStore(async () => new SqliteFactStore(db), {
  teardown: async () => {
    db.close();
    dir.remove();
  },
});

describe('SqliteFactStore: a facts table from before `glosses`', () => {
  it('gets the column on open, its glossing rows marked once, and reads them as glossing', async () => {
    const old = openSqliteDatabase(':memory:');
    // The layout before, holding a memory that glosses a name and one that does not.
    old.exec(`
      CREATE TABLE facts (
        tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, memory_id TEXT NOT NULL, merge_key TEXT NOT NULL,
        status TEXT NOT NULL, pinned INTEGER NOT NULL, revision INTEGER NOT NULL, created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL, record TEXT NOT NULL,
        PRIMARY KEY (tenant_id, user_id, memory_id), UNIQUE (tenant_id, user_id, merge_key)
      );
    `);
    const glossing = aMemoryRecord({ attribute: 'db', content: '主库是白鲸（Blackwhale）' });
    const plain = aMemoryRecord({ attribute: 'editor' });
    const insert = old.prepare(`INSERT INTO facts VALUES (?, ?, ?, ?, 'active', 0, 1, 0, 0, ?)`);
    for (const r of [glossing, plain]) insert.run(r.tenantId, r.userId, r.memoryId, r.mergeKey, JSON.stringify(r));

    const store = new SqliteFactStore(old);
    expect(await store.glossing(glossing.tenantId, glossing.userId)).toEqual([glossing]);
    expect(new SqliteFactStore(old)).toBeInstanceOf(SqliteFactStore); // opened again: nothing left to do
    expect(await store.list({ tenantId: plain.tenantId, userId: plain.userId })).toHaveLength(2);
    old.close();
  });
});
