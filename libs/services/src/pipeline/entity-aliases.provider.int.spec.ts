import 'reflect-metadata';
import { openSqliteDatabase, SqliteFactStore } from '@engram/adapters-sqlite';
import { engramOptions, loadConfig } from '@engram/config';
import { MemoryDecision, MemoryRecord, UserForgotten } from '@engram/contracts';
import { aMemoryRecord } from '@engram/testing';
import { EntityAliases } from './entity-aliases.provider';
import { FactsProjection } from './facts.projection';

/**
 * A user's learned aliases, learned at recall from the memories of theirs that gloss a name, as the
 * fact store holds them now (real SQLite fact store): nothing kept between recalls to go stale.
 */
const TENANT = 'tenant-a';
const USER = 'user-1';

function glossing(n: number, userId = USER, overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return aMemoryRecord({
    userId,
    memoryId: `m${n}`,
    mergeKey: `user/db${n}`,
    content: `记住：白鲸（Blackwhale）第 ${n} 次`,
    sourceTurnIds: [`t${n}`],
    ...overrides,
  });
}

function decision(memory: MemoryRecord): MemoryDecision {
  return {
    eventId: `d-${memory.memoryId}-${memory.revision}`,
    type: 'MemoryAdded',
    schemaVersion: 1,
    tenantId: memory.tenantId,
    userId: memory.userId,
    occurredAt: memory.createdAt,
    recordedAt: memory.createdAt,
    causationId: null,
    correlationId: 'c',
    payload: { memory, itemId: null },
  };
}

function forgotten(userId: string): UserForgotten {
  const at = '2026-02-01T00:00:00.000Z';
  return {
    eventId: `f-${userId}`,
    type: 'UserForgotten',
    schemaVersion: 1,
    tenantId: TENANT,
    userId,
    occurredAt: at,
    recordedAt: at,
    causationId: null,
    correlationId: 'c',
    payload: { requestedAt: at },
  };
}

describe('EntityAliases: a user’s learned aliases', () => {
  let aliases: EntityAliases;
  let store: SqliteFactStore;
  let projection: FactsProjection;
  const learned = async (userId = USER) => (await aliases.ofUser(store, TENANT, userId)).canonicalOf.get('blackwhale');

  beforeEach(() => {
    aliases = new EntityAliases(engramOptions(loadConfig({ ENGRAM_ALIAS_MIN_SEEN: '2' })).entityAliases);
    store = new SqliteFactStore(openSqliteDatabase(':memory:'));
    projection = new FactsProjection(store);
  });

  it('learns a gloss seen in two turns, from the store as it stands after every write', async () => {
    await projection.apply([decision(glossing(1))]);
    expect(await learned()).toBeUndefined(); // one gloss: not learned
    await store.save([glossing(2)]); // any writer: nothing kept to go stale
    expect(await learned()).toBe('Blackwhale');
    // The second gloss rewritten away: unlearned at once.
    await projection.apply([decision({ ...glossing(2), revision: 2, content: '记住：白鲸第 2 次' })]);
    expect(await learned()).toBeUndefined();
  });

  it('counts a turn once, however many of its memories repeat the gloss (a fact and its episode)', async () => {
    await store.save([glossing(1), glossing(2, USER, { sourceTurnIds: ['t1'] })]);
    expect(await learned()).toBeUndefined();
    await store.save([glossing(3, USER, { status: 'retracted' })]); // any status counts
    expect(await learned()).toBe('Blackwhale');
  });

  it('keeps users apart, and forgets the aliases with the user and on truncate', async () => {
    await projection.apply([glossing(1), glossing(2), glossing(1, 'user-2'), glossing(2, 'user-2')].map(decision));
    await store.save([aMemoryRecord({ userId: 'user-3', memoryId: 'm1', mergeKey: 'user/db1', content: '白鲸（Blackwhale）' })]);
    expect(await learned()).toBe('Blackwhale');
    expect(await learned('user-3')).toBeUndefined();

    await projection.apply([forgotten(USER)]);
    expect(await learned()).toBeUndefined();
    expect(await learned('user-2')).toBe('Blackwhale');

    await projection.truncate();
    expect(await learned('user-2')).toBeUndefined();
  });

  it('learns from the glossing memories alone what it would learn from every memory of the user', async () => {
    const memories = [
      glossing(1),
      aMemoryRecord({ memoryId: 'e1', mergeKey: 'episode/t1', kind: 'episode', content: '白鲸（Blackwhale）上线', sourceTurnIds: ['t1'] }),
      aMemoryRecord({ memoryId: 'p1', mergeKey: 'user/plain', content: '主库是白鲸', sourceTurnIds: ['t5'] }),
      aMemoryRecord({ memoryId: 'n1', mergeKey: 'user/phone', content: 'call [PHONE]（12）', sourceTurnIds: ['t6'] }),
      aMemoryRecord({ memoryId: 's1', mergeKey: 'session/summary:s1', kind: 'summary', content: '白鲸（Blackwhale）；白鲸（Blackwhale）' }),
      glossing(7, USER, { content: 'We run on Amazon Web Services (AWS) and pg (aka PostgreSQL)' }),
      glossing(8, USER, { content: 'pg (aka PostgreSQL) again' }),
    ];
    await store.save(memories);
    expect((await store.glossing(TENANT, USER)).map((m) => m.memoryId)).toEqual(['e1', 'm1', 'm7', 'm8']);
    const fromAll = aliases.forMemories(await store.list({ tenantId: TENANT, userId: USER }));
    const fromGlossing = await aliases.ofUser(store, TENANT, USER);
    expect(fromGlossing).toEqual(fromAll);
    expect(fromGlossing.canonicalOf.get('pg')).toBe('PostgreSQL');
    expect(fromGlossing.canonicalOf.get('blackwhale')).toBeUndefined(); // t1 once, the summary not at all
  });
});
