import { aSearchDocument, testSearchIndex, uniqueName, uniqueSuffix } from '@engram/testing';
import { documentId, routingOf } from './elasticsearch-documents';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';
import { countRequests } from './elasticsearch-requests';
import { VisibleSearchIndex } from './elasticsearch-visible-index';

// Elasticsearch from `deploy/local/elasticsearch.sh start` unless ELASTICSEARCH_URL says otherwise.
const node = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200';
// One index prefix per run (lowercase: index names must be); every index is deleted by exact name afterwards.
const prefix = `engram-test-${uniqueSuffix()}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
const opened: ElasticsearchSearchIndex[] = [];

async function open(options: { name: string; version?: number; activate?: boolean }): Promise<ElasticsearchSearchIndex> {
  const index = new ElasticsearchSearchIndex({
    node,
    indexPrefix: `${prefix}-${options.name}`,
    dimensions: 4,
    version: options.version,
    activate: options.activate,
  });
  opened.push(index);
  await index.init();
  return index;
}

afterAll(async () => {
  for (const index of opened) {
    try {
      await index.drop();
    } finally {
      await index.close();
    }
  }
});

testSearchIndex(() => open({ name: 'contract' }), {
  settle: (index) => (index as ElasticsearchSearchIndex).refresh(),
  testTimeoutMs: 30_000,
});

describe('ElasticsearchSearchIndex specifics', () => {
  const userId = 'user-1';
  let tenantId: string;
  beforeEach(() => {
    tenantId = uniqueName('tenant');
  });

  it('creates <prefix>-v<version> behind the <prefix> alias, and keeps ids with ":" apart', async () => {
    const index = await open({ name: 'layout', version: 3 });
    expect(index.indexName).toBe(`${prefix}-layout-v3`);
    const aliases = await index.client.indices.getAlias({ name: `${prefix}-layout` });
    expect(Object.keys(aliases)).toEqual([`${prefix}-layout-v3`]);
    expect(documentId('t:x', 'y', 'm')).not.toBe(documentId('t', 'x:y', 'm'));
    expect(documentId('t', 'u', 'm')).toBe('t:u:m');
    expect(documentId('t', 'u', 'm'.repeat(600))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('keeps terms whole and case-sensitive, and content out of the ranking', async () => {
    const index = await open({ name: 'terms' });
    await index.upsert([
      aSearchDocument({ tenantId, memoryId: 'upper', content: 'Café', terms: ['Café', 'C#'] }),
      aSearchDocument({ tenantId, memoryId: 'lower', content: 'café', terms: ['café', 'c#'] }),
      aSearchDocument({ tenantId, memoryId: 'content-only', content: '咖啡店 café', terms: ['other'] }),
    ]);
    await index.refresh();
    const text = (terms: string[]) => index.searchText({ tenantId, userId, terms, limit: 10 });
    expect((await text(['Café'])).map((h) => h.memoryId)).toEqual(['upper']);
    expect((await text(['c#'])).map((h) => h.memoryId)).toEqual(['lower']);
    expect(await text(['caf'])).toEqual([]);
    expect(await text(['咖啡店'])).toEqual([]);
  });

  it('moves the alias atomically when a rebuilt version is activated', async () => {
    const live = await open({ name: 'swap', version: 1 });
    const rebuilt = await open({ name: 'swap', version: 2, activate: false });
    await live.upsert([aSearchDocument({ tenantId, memoryId: 'old', terms: ['budget'] })]);
    await rebuilt.upsert([aSearchDocument({ tenantId, memoryId: 'new', terms: ['budget'] })]);
    await live.refresh();
    await rebuilt.refresh();
    const query = { tenantId, userId, terms: ['budget'], limit: 5 };
    expect((await live.searchText(query)).map((h) => h.memoryId)).toEqual(['old']);
    expect((await rebuilt.searchText(query)).map((h) => h.memoryId)).toEqual(['new']);

    await rebuilt.activate();
    const aliases = await live.client.indices.getAlias({ name: `${prefix}-swap` });
    expect(Object.keys(aliases)).toEqual([`${prefix}-swap-v2`]);
    // `live` still reads through the alias, which now serves version 2.
    expect((await live.searchText(query)).map((h) => h.memoryId)).toEqual(['new']);
  });

  it('lets a deleted user start afresh at once, although the deletes leave versioned tombstones', async () => {
    const index = await open({ name: 'tombstones' });
    for (let round = 0; round < 3; round++) {
      await index.upsert([aSearchDocument({ tenantId, memoryId: 'm', revision: 7 })]);
      await index.deleteUser(tenantId, userId);
      await index.upsert([aSearchDocument({ tenantId, memoryId: 'm', revision: 1 })]);
      expect(await index.revisions(tenantId, userId, ['m'])).toEqual(new Map([['m', 1]]));
      await index.upsert([aSearchDocument({ tenantId, memoryId: 'm', revision: 1, terms: ['replayed'] })]);
      await index.refresh();
      expect(await index.searchText({ tenantId, userId, terms: ['replayed'], limit: 5 })).toEqual([]);
      await index.deleteUser(tenantId, userId);
    }
  }, 30_000);

  it('routes each user to one shard: stored with its routing, answered by that shard alone', async () => {
    const index = new ElasticsearchSearchIndex({ node, indexPrefix: `${prefix}-routed`, dimensions: 4, shards: 3 });
    opened.push(index);
    await index.init();
    const users = ['user-1', 'user-2', 'user-3', 'user-4', 'user-5'];
    await index.upsert(
      users.flatMap((u) => [0, 1].map((i) => aSearchDocument({ tenantId, userId: u, memoryId: `${u}-${i}`, terms: ['budget'] }))),
    );
    await index.refresh();
    for (const u of users) {
      const hits = await index.searchText({ tenantId, userId: u, terms: ['budget'], limit: 10 });
      expect(hits.map((h) => h.memoryId).sort()).toEqual([`${u}-0`, `${u}-1`]);
      expect((await index.searchVector({ tenantId, userId: u, vector: [1, 0, 0, 0], limit: 10 })).length).toBe(2);
      expect(await index.countUser(tenantId, u)).toBe(2);
      expect(await index.revisions(tenantId, u, [`${u}-0`])).toEqual(new Map([[`${u}-0`, 1]]));
    }
    const stored = await index.client.search({ index: index.indexName, size: 100, query: { term: { tenantId } } });
    expect(stored.hits.hits.map((hit) => hit._routing)).toEqual(
      stored.hits.hits.map((hit) => routingOf(tenantId, (hit._source as { userId: string }).userId)),
    );
    const routed = await index.client.search({ index: index.indexName, routing: routingOf(tenantId, 'user-1'), size: 0 });
    expect(routed._shards.total).toBe(1);
    // A write that forgot the routing is refused, not put on a shard no routed query reads.
    await expect(index.client.index({ index: index.indexName, id: 'unrouted', document: {} })).rejects.toThrow(/routing/);
    await index.deleteUser(tenantId, 'user-1');
    expect(await index.countUser(tenantId, 'user-1')).toBe(0);
    expect(await index.countUser(tenantId, 'user-2')).toBe(2);
  });

  it('deletes a user across several pages', async () => {
    const index = new ElasticsearchSearchIndex({ node, indexPrefix: `${prefix}-paged`, dimensions: 4, deletePageSize: 7 });
    opened.push(index);
    await index.init();
    await index.upsert(Array.from({ length: 30 }, (_, i) => aSearchDocument({ tenantId, memoryId: `m-${i}` })));
    await index.upsert([aSearchDocument({ tenantId, userId: 'user-2', memoryId: 'kept' })]);
    await index.deleteUser(tenantId, userId);
    expect(await index.countUser(tenantId, userId)).toBe(0);
    expect(await index.countUser(tenantId, 'user-2')).toBe(1);
  });

  it('as VisibleSearchIndex: a batch is searchable once its upsert resolves, written with one bulk request and no refresh request', async () => {
    const index = await open({ name: 'visible' });
    const requests: string[] = [];
    countRequests(index.client, (operation) => requests.push(operation));
    const visible = new VisibleSearchIndex(index);
    await visible.upsert(Array.from({ length: 50 }, (_, i) => aSearchDocument({ tenantId, memoryId: `m-${i}`, terms: ['budget'] })));
    expect(requests).toEqual(['POST /{index}/_bulk']);
    // Searched at once, with no refresh in between: the bulk request refreshed what it wrote.
    expect(await visible.searchText({ tenantId, userId, terms: ['budget'], limit: 100 })).toHaveLength(50);
    expect(await visible.countUser(tenantId, userId)).toBe(50);
  });
});
