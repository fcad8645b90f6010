import { openSqliteDatabase, SqliteFactStore } from '@engram/adapters-sqlite';
import type { MemoryQuery } from '@engram/ports';
import { aMemoryRecord, minutesAfterStart } from '@engram/testing';
import { userFactsFrom } from './user-facts';

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
