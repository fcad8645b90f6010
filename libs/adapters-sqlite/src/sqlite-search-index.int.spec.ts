import { aSearchDocument, makeTempDir, testSearchIndex, uniqueName } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteSearchIndex } from './sqlite-search-index.adapter';

describe('SqliteSearchIndex', () => {
  const dir = makeTempDir('engram-search-');
  afterAll(() => dir.remove());

  describe('with the vector cache', () => {
    const db = openSqliteDatabase(dir.file('cached.db'));
    testSearchIndex(async () => new SqliteSearchIndex(db), { teardown: async () => void db.close() });
  });

  describe('without the vector cache', () => {
    const db = openSqliteDatabase(dir.file('uncached.db'));
    testSearchIndex(async () => new SqliteSearchIndex(db, { vectorCacheBytes: 0 }), { teardown: async () => void db.close() });
  });

  it('sees documents written through another connection (the CLI) in vector search', async () => {
    const file = dir.file('two-connections.db');
    const serverDb = openSqliteDatabase(file);
    const cliDb = openSqliteDatabase(file);
    const server = new SqliteSearchIndex(serverDb);
    const cli = new SqliteSearchIndex(cliDb);
    const tenantId = uniqueName('tenant');
    const search = () => server.searchVector({ tenantId, userId: 'user-1', vector: [1, 0, 0, 0], limit: 10 });

    await server.upsert([aSearchDocument({ tenantId, memoryId: 'a', vector: [1, 0, 0, 0] })]);
    expect((await search()).map((h) => h.memoryId)).toEqual(['a']);
    await cli.upsert([aSearchDocument({ tenantId, memoryId: 'b', vector: [0.9, 0.1, 0, 0] })]);
    expect((await search()).map((h) => h.memoryId)).toEqual(['a', 'b']);
    await cli.deleteUser(tenantId, 'user-1');
    expect(await search()).toEqual([]);
    serverDb.close();
    cliDb.close();
  });

  it('keeps projection versions apart by namespace', async () => {
    const db = openSqliteDatabase(':memory:');
    const live = new SqliteSearchIndex(db);
    const rebuilding = new SqliteSearchIndex(db, { namespace: 'v2_' });
    await live.upsert([aSearchDocument({ memoryId: 'old', terms: ['budget'] })]);
    await rebuilding.upsert([aSearchDocument({ memoryId: 'new', terms: ['budget'] })]);
    const query = { tenantId: 'tenant-a', userId: 'user-1', terms: ['budget'], limit: 5 };
    expect((await live.searchText(query)).map((h) => h.memoryId)).toEqual(['old']);
    expect((await rebuilding.searchText(query)).map((h) => h.memoryId)).toEqual(['new']);
    expect(() => new SqliteSearchIndex(db, { namespace: 'x; DROP TABLE' })).toThrow(/namespace/);
    db.close();
  });
});
