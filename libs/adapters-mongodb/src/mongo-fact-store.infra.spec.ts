import { aMemoryRecord, testFactStore, uniqueName } from '@engram/testing';
import { MongoFactStore } from './mongo-fact-store.adapter';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('facts');

testFactStore(async () => MongoFactStore.open(await openDb()));

describe('MongoFactStore specifics', () => {
  let store: MongoFactStore;
  let tenantId: string;
  const userId = 'user-1';

  beforeAll(async () => {
    store = await MongoFactStore.open(await openDb(), { suffix: '_specifics' });
  });
  beforeEach(() => {
    tenantId = uniqueName('tenant');
  });

  it('stores the record as a queryable document with the composite _id, and returns it without _id', async () => {
    const r = aMemoryRecord({ tenantId, userId, entities: ['PostgreSQL'], history: [] });
    await store.save([r]);
    const doc = await store.collection.findOne({ tenantId, userId, entities: 'PostgreSQL' });
    expect(doc?._id).toBe(`${tenantId}:${userId}:${r.memoryId}`);
    expect(doc?.status).toBe('active');
    const [got] = await store.get(tenantId, userId, [r.memoryId]);
    expect(got).toEqual(r);
    expect(Object.keys(got)).not.toContain('_id');
    expect(Object.keys(got)).not.toContain('_createdMs');
  });

  it('keeps ids containing ":" apart', async () => {
    const a = aMemoryRecord({ tenantId: `${tenantId}:x`, userId: 'y', memoryId: 'm', value: 'a' });
    const b = aMemoryRecord({ tenantId, userId: 'x:y', memoryId: 'm', value: 'b' });
    await store.save([a, b]);
    expect(await store.get(a.tenantId, a.userId, ['m'])).toEqual([a]);
    expect(await store.get(b.tenantId, b.userId, ['m'])).toEqual([b]);
  });

  it('applies the fresh records of a batch that also holds stale ones (bulk write falls back per record)', async () => {
    const stale = aMemoryRecord({ tenantId, userId, attribute: 'editor', revision: 5, value: 'helix' });
    await store.save([stale]);
    const fresh = ['a', 'b', 'c'].map((attribute) => aMemoryRecord({ tenantId, userId, attribute, revision: 1 }));
    await store.save([fresh[0], aMemoryRecord({ tenantId, userId, attribute: 'editor', revision: 2 }), fresh[1], fresh[2]]);
    const byAttr = new Map((await store.list({ tenantId, userId })).map((r) => [r.attribute, r]));
    expect(byAttr.get('editor')).toEqual(stale);
    for (const r of fresh) expect(byAttr.get(r.attribute)).toEqual(r);
  });

  it('rejects a second memory with the same merge key for a user, and does not mistake it for a stale write', async () => {
    const first = aMemoryRecord({ tenantId, userId, memoryId: 'm-1', mergeKey: 'user/editor' });
    await store.save([first]);
    const clash = aMemoryRecord({ tenantId, userId, memoryId: 'm-2', mergeKey: 'user/editor' });
    await expect(store.save([clash])).rejects.toThrow(/merge key "user\/editor"/);
    expect(await store.list({ tenantId, userId })).toEqual([first]);
  });

  it('orders by the instant of createdAt, also when written with an offset', async () => {
    const later = aMemoryRecord({ tenantId, userId, attribute: 'later', createdAt: '2026-01-05T10:30:00.000+02:00' }); // 08:30Z
    const earlier = aMemoryRecord({ tenantId, userId, attribute: 'earlier', createdAt: '2026-01-05T08:00:00.000Z' });
    await store.save([later, earlier]);
    expect((await store.list({ tenantId, userId })).map((r) => r.attribute)).toEqual(['earlier', 'later']);
  });

  it('marks each document whether it glosses a name, and reads a document from before the mark with the glossing ones', async () => {
    const glossing = aMemoryRecord({ tenantId, userId, attribute: 'db', content: '主库是白鲸（Blackwhale）' });
    const plain = aMemoryRecord({ tenantId, userId, attribute: 'editor' });
    await store.save([glossing, plain]);
    expect((await store.collection.findOne({ _id: `${tenantId}:${userId}:${glossing.memoryId}` }))?._glosses).toBe(true);
    expect((await store.collection.findOne({ _id: `${tenantId}:${userId}:${plain.memoryId}` }))?._glosses).toBe(false);
    // Written before `_glosses` was kept: no field, so it may gloss; the caller checks it.
    const before = aMemoryRecord({ tenantId, userId, attribute: 'older', createdAt: '2025-01-01T00:00:00.000Z' });
    await store.collection.insertOne({
      ...before,
      _id: `${tenantId}:${userId}:${before.memoryId}`,
      _createdMs: Date.parse(before.createdAt),
    } as never);
    expect(await store.glossing(tenantId, userId)).toEqual([before, glossing]);
  });

  it('replaces more memories in one bulk write than FerretDB has connections (it once held one per replaced memory until the write ended, and hung)', async () => {
    const records = Array.from({ length: 150 }, (_, i) => aMemoryRecord({ tenantId, userId, attribute: `a${i}` }));
    await store.save(records);
    const next = records.map((r) => ({ ...r, revision: 2, value: 'changed' }));
    await store.save(next);
    const stored = new Map((await store.list({ tenantId, userId })).map((r) => [r.memoryId, r]));
    expect(stored.size).toBe(150);
    for (const r of next) expect(stored.get(r.memoryId)).toEqual(r);
  }, 30_000);

  it('costs one command per batch: a save of many users is one bulk write, and listUsers one find', async () => {
    const users = Array.from({ length: 40 }, (_, u) => `batch-${u}`);
    const records = users.flatMap((u) => ['a', 'b', 'c'].map((attribute) => aMemoryRecord({ tenantId, userId: u, attribute })));
    const commands: string[] = [];
    const count = (event: { commandName: string }) => commands.push(event.commandName);
    const client = (await openDb()).client;
    client.on('commandStarted', count);
    try {
      await store.save(records);
      expect(commands).toEqual(['update']);
      commands.length = 0;
      const read = await store.listUsers(users.map((userId) => ({ tenantId, userId })));
      // 120 documents, more than a first batch's default 101: still one round trip.
      expect(read).toHaveLength(120);
      expect(commands).toEqual(['find']);
      commands.length = 0;
      // The same batch again (delivered twice): its bulk write stops at the first stale record, one
      // find tells what is stored, and nothing is left to write.
      await store.save(records);
      expect(commands).toEqual(['update', 'find']);
      commands.length = 0;
      // A save larger than a bulk write's size is split by user, never a user across two.
      const small = new MongoFactStore(await openDb(), { suffix: '_specifics', bulkWriteSize: 50 });
      await small.save(records.map((r) => ({ ...r, revision: 2 })));
      expect(commands).toEqual(['update', 'update', 'update']);
      commands.length = 0;
      // What a recall reads of the facts: the glossing memories, then the candidates, pinned and summary at once.
      await store.glossing(tenantId, users[0]);
      await store.select({
        tenantId,
        userId: users[0],
        memoryIds: records.slice(0, 2).map((r) => r.memoryId),
        mergeKeys: ['session/summary:s'],
        pinned: true,
      });
      expect(commands).toEqual(['find', 'find']);
    } finally {
      client.off('commandStarted', count);
    }
  }, 60_000);
});
