import { openSqliteDatabase, SqliteFactStore } from '@engram/adapters-sqlite';
import type { MemoryQuery } from '@engram/ports';
import { aMemoryRecord, minutesAfterStart } from '@engram/testing';
import { GatheredFactReads, userFactsFrom } from './user-facts';

describe('userFactsFrom: a user’s memories read whole answer as the fact store does', () => {
  const tenantId = 'tenant-a';
  const userId = 'user-1';
  const store = new SqliteFactStore(openSqliteDatabase(':memory:'));
  const records = [
    aMemoryRecord({ tenantId, userId, attribute: 'c', createdAt: minutesAfterStart(3), status: 'retracted' }),
    aMemoryRecord({ tenantId, userId, attribute: 'a', createdAt: minutesAfterStart(1), pinned: true, kind: 'profile' }),
    aMemoryRecord({ tenantId, userId, attribute: 'b', createdAt: minutesAfterStart(1) }),
    aMemoryRecord({ tenantId, userId, attribute: 'd', createdAt: minutesAfterStart(4), status: 'archived', pinned: true }),
  ];

  beforeAll(() => store.save(records));

  it('by id, by merge key and listed with each filter: the same records in the same order', async () => {
    const known = userFactsFrom(await store.list({ tenantId, userId }));
    const ids = ['mem-user/d', 'mem-user/a', 'missing', 'mem-user/b'];
    expect(await known.get(tenantId, userId, ids)).toEqual(await store.get(tenantId, userId, ids));
    const keys = ['user/c', 'user/b', 'user/none'];
    expect(await known.findByMergeKeys(tenantId, userId, keys)).toEqual(await store.findByMergeKeys(tenantId, userId, keys));
    const queries: Omit<MemoryQuery, 'tenantId' | 'userId'>[] = [
      {},
      { pinned: true, statuses: ['active'] },
      { statuses: ['active'] },
      { statuses: ['retracted', 'archived'] },
      { pinned: false },
      { statuses: [] },
    ];
    for (const query of queries) {
      expect({ query, records: await known.list({ tenantId, userId, ...query }) }).toEqual({
        query,
        records: await store.list({ tenantId, userId, ...query }),
      });
    }
  });
});

describe('GatheredFactReads: what recall asks before the search answers, read at once', () => {
  const tenantId = 'tenant-a';
  const userId = 'user-1';
  const store = new SqliteFactStore(openSqliteDatabase(':memory:'));
  const records = [
    aMemoryRecord({ tenantId, userId, attribute: 'name', kind: 'profile', pinned: true, createdAt: minutesAfterStart(1) }),
    aMemoryRecord({ tenantId, userId, attribute: 'editor', createdAt: minutesAfterStart(2) }),
    aMemoryRecord({ tenantId, userId, attribute: 'summary', mergeKey: 'session/summary:s1', createdAt: minutesAfterStart(3) }),
    aMemoryRecord({ tenantId, userId, attribute: 'budget', createdAt: minutesAfterStart(4) }),
  ];
  /** The real store, its calls counted by method. */
  const counted = () => {
    const calls: string[] = [];
    const seen = Object.create(store) as SqliteFactStore;
    for (const method of ['get', 'findByMergeKeys', 'list', 'select'] as const) {
      Object.defineProperty(seen, method, {
        value: (...args: unknown[]) => {
          calls.push(method);
          return (store[method] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
        },
      });
    }
    return { seen, calls };
  };

  beforeAll(() => store.save(records));

  it('answers each read as the store would, from one select sent on release; later reads go to the store', async () => {
    const { seen, calls } = counted();
    const reads = new GatheredFactReads(seen, tenantId, userId);
    const pinned = reads.list({ tenantId, userId, pinned: true, statuses: ['active'] });
    const summary = reads.findByMergeKeys(tenantId, userId, ['session/summary:s1']);
    const candidates = reads.get(tenantId, userId, ['mem-user/editor', 'missing']);
    expect(calls).toEqual([]); // nothing sent before the search has named the candidates
    reads.release();
    expect(await pinned).toEqual(await store.list({ tenantId, userId, pinned: true, statuses: ['active'] }));
    expect(await summary).toEqual(await store.findByMergeKeys(tenantId, userId, ['session/summary:s1']));
    expect(await candidates).toEqual(await store.get(tenantId, userId, ['mem-user/editor', 'missing']));
    expect(calls).toEqual(['select']);

    expect(await reads.get(tenantId, userId, ['mem-user/budget'])).toEqual([records[3]]);
    expect(await reads.list({ tenantId, userId, statuses: ['active'] })).toHaveLength(4);
    expect(calls).toEqual(['select', 'get', 'list']);
  });

  it('reads nothing when nothing was asked before release', async () => {
    const { seen, calls } = counted();
    new GatheredFactReads(seen, tenantId, userId).release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
  });
});
