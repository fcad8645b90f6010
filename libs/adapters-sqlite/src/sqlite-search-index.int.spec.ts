import type { SearchDocument, SearchHit } from '@engram/ports';
import { aSearchDocument, makeTempDir, testSearchIndex, uniqueName } from '@engram/testing';
import { type Database, openSqliteDatabase } from './sqlite-database';
import { SqliteSearchIndex } from './sqlite-search-index.adapter';

const hex = (term: string) => Buffer.from(term, 'utf8').toString('hex');

/** The same hits in the same order, each score equal but for the last bits of a logarithm (V8's Math.log is not the C library's). */
function expectSameRanking(actual: readonly SearchHit[], expected: readonly SearchHit[]): void {
  expect(actual.map((h) => h.memoryId)).toEqual(expected.map((h) => h.memoryId));
  actual.forEach((hit, i) => expect(Math.abs(hit.score - expected[i].score)).toBeLessThanOrEqual(Math.abs(expected[i].score) * 1e-12));
}

/**
 * The layout before per-user postings, built from the documents table: FTS5 with an owner column
 * beside every user's terms, ranked by FTS5's own bm25(). What scores must still be, and what an
 * old data directory holds.
 */
function ownerColumnIndex(db: Database): (tenantId: string, userId: string, terms: readonly string[], limit: number) => SearchHit[] {
  const owner = (tenantId: string, userId: string) => hex(JSON.stringify([tenantId, userId]));
  db.exec(`CREATE VIRTUAL TABLE search_terms USING fts5(owner, terms, tokenize = 'ascii')`);
  const insert = db.prepare(`INSERT INTO search_terms (rowid, owner, terms) VALUES (?, ?, ?)`);
  const active = db.prepare<[], { id: number; tenant_id: string; user_id: string; terms: string }>(
    `SELECT id, tenant_id, user_id, terms FROM search_documents WHERE status = 'active'`,
  );
  for (const row of active.all()) {
    const terms = (JSON.parse(row.terms) as string[]).filter((t) => t.length > 0).map(hex);
    insert.run(row.id, owner(row.tenant_id, row.user_id), terms.join(' '));
  }
  const search = db.prepare<[string, number], { memory_id: string; rank: number }>(
    `SELECT d.memory_id AS memory_id, bm25(search_terms, 0.0, 1.0) AS rank
     FROM search_terms JOIN search_documents d ON d.id = search_terms.rowid
     WHERE search_terms MATCH ? AND d.status = 'active' ORDER BY rank, d.memory_id LIMIT ?`,
  );
  return (tenantId, userId, terms, limit) =>
    search
      .all(`owner : "${owner(tenantId, userId)}" AND terms : (${[...new Set(terms)].map((t) => `"${hex(t)}"`).join(' OR ')})`, limit)
      .map((row) => ({ memoryId: row.memory_id, score: -row.rank }));
}

/** Users whose words overlap with uneven frequencies, repeated terms, other statuses, rewrites and a forgotten user. */
async function fillWithOverlappingUsers(index: SqliteSearchIndex): Promise<string[][]> {
  const words = [
    'budget',
    'flight',
    'window',
    'seat',
    'coffee',
    '咖啡',
    '推荐',
    'c++',
    'node.js',
    'tea',
    'paris',
    'monday',
    'dentist',
    'piano',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Skewed towards the first words, so some terms are in most documents and some in few.
  const word = () => words[Math.floor(next() ** 2 * words.length)];
  const docs: SearchDocument[] = [];
  for (let i = 0; i < 240; i++) {
    const terms = Array.from({ length: 1 + Math.floor(next() * 7) }, word);
    docs.push(
      aSearchDocument({
        tenantId: `tenant-${i % 2}`,
        userId: `user-${i % 5}`,
        memoryId: `m-${i}`,
        terms: i % 17 === 0 ? [...terms, ''] : terms,
        status: i % 11 === 0 ? 'retracted' : 'active',
      }),
    );
  }
  for (let i = 0; i < docs.length; i += 40) await index.upsert(docs.slice(i, i + 40));
  // Rewrites: new terms, a retraction, a revival.
  await index.upsert(
    docs.slice(0, 30).map((d, i) => ({ ...d, revision: 2, terms: [word(), word()], status: i % 4 === 0 ? 'retracted' : 'active' })),
  );
  await index.upsert([{ ...docs[11], revision: 3, status: 'active' }]);
  await index.deleteUser('tenant-1', 'user-3');
  return [['budget'], ['flight', 'window', 'seat'], ['piano', 'dentist', 'budget'], ['咖啡', '推荐', 'c++', 'tea'], words];
}

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

  it('scores as FTS5 bm25() over the whole index did: the same hits, order and scores', async () => {
    const db = openSqliteDatabase(':memory:');
    const index = new SqliteSearchIndex(db);
    const queries = await fillWithOverlappingUsers(index);
    const before = ownerColumnIndex(db);
    let compared = 0;
    for (const [tenantId, userId] of [
      ['tenant-0', 'user-0'],
      ['tenant-1', 'user-1'],
      ['tenant-0', 'user-4'],
      ['tenant-1', 'user-3'],
    ]) {
      for (const terms of queries) {
        for (const limit of [3, 100]) {
          const expected = before(tenantId, userId, terms, limit);
          expectSameRanking(await index.searchText({ tenantId, userId, terms, limit }), expected);
          compared += expected.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    db.close();
  });

  it('migrates a data directory with the owner-column layout on open, and ranks as it did', async () => {
    const db = openSqliteDatabase(':memory:');
    const queries = await fillWithOverlappingUsers(new SqliteSearchIndex(db));
    // What an old data directory holds: the documents and `search_terms`, none of the new tables.
    db.exec('DROP TABLE search_postings; DROP TABLE search_term_counts; DROP TABLE search_totals');
    const before = ownerColumnIndex(db);
    const expected = queries.map((terms) => before('tenant-0', 'user-2', terms, 50));

    const index = new SqliteSearchIndex(db);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'search_terms'").all()).toEqual([]);
    for (const [i, terms] of queries.entries()) {
      expectSameRanking(await index.searchText({ tenantId: 'tenant-0', userId: 'user-2', terms, limit: 50 }), expected[i]);
    }
    expect(expected.flat().length).toBeGreaterThan(20);
    // The counts it rebuilt are maintained from there on.
    await index.upsert([aSearchDocument({ tenantId: 'tenant-0', userId: 'user-2', memoryId: 'new', terms: ['budget', 'piano'] })]);
    const after = ownerColumnIndex(db);
    expectSameRanking(
      await index.searchText({ tenantId: 'tenant-0', userId: 'user-2', terms: ['budget', 'piano'], limit: 50 }),
      after('tenant-0', 'user-2', ['budget', 'piano'], 50),
    );
    db.close();
  });

  it('forgets a user’s words: no posting, count or total of theirs is left', async () => {
    const db = openSqliteDatabase(':memory:');
    const index = new SqliteSearchIndex(db);
    await index.upsert([
      aSearchDocument({ userId: 'stays', memoryId: 'a', terms: ['shared', 'common'] }),
      aSearchDocument({ userId: 'goes', memoryId: 'b', terms: ['shared', 'onlymine', 'onlymine'] }),
      aSearchDocument({ userId: 'goes', memoryId: 'c', terms: ['onlymine'], status: 'retracted' }),
    ]);
    const counts = () => db.prepare('SELECT term, documents FROM search_term_counts ORDER BY term').all();
    expect(counts()).toEqual(
      [
        ['common', 1],
        ['onlymine', 1],
        ['shared', 2],
      ].map(([term, documents]) => ({ term: hex(term as string), documents })),
    );
    await index.deleteUser('tenant-a', 'goes');
    expect(counts()).toEqual([
      { term: hex('common'), documents: 1 },
      { term: hex('shared'), documents: 1 },
    ]);
    expect(db.prepare('SELECT documents, tokens FROM search_totals').get()).toEqual({ documents: 1, tokens: 3 });
    db.close();
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
