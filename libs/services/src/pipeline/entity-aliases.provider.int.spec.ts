import 'reflect-metadata';
import { openSqliteDatabase, SqliteFactStore } from '@engram/adapters-sqlite';
import { engramOptions, loadConfig } from '@engram/config';
import { MemoryDecision, MemoryRecord, UserForgotten } from '@engram/contracts';
import { aMemoryRecord } from '@engram/testing';
import { EntityAliases } from './entity-aliases.provider';
import { FactsProjection } from './facts.projection';

/**
 * The learned alias table is kept per user between recalls and learned again whenever the facts
 * projection writes that user, forgets them or is truncated (real SQLite fact store).
 */
const TENANT = 'tenant-a';
const USER = 'user-1';

function glossing(n: number, userId = USER): MemoryRecord {
  return aMemoryRecord({
    userId,
    memoryId: `m${n}`,
    mergeKey: `user/db${n}`,
    content: `记住：白鲸（Blackwhale）第 ${n} 次`,
    sourceTurnIds: [`t${n}`],
  });
}

function decision(memory: MemoryRecord): MemoryDecision {
  return {
    eventId: `d-${memory.memoryId}`,
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

const learned = async (aliases: EntityAliases, ...args: Parameters<EntityAliases['ofUser']>) =>
  (await aliases.ofUser(...args)).table.canonicalOf.get('blackwhale');

describe('EntityAliases: the learned tables', () => {
  let aliases: EntityAliases;
  let store: SqliteFactStore;
  let projection: FactsProjection;

  beforeEach(() => {
    aliases = new EntityAliases(engramOptions(loadConfig({ ENGRAM_ALIAS_MIN_SEEN: '2' })).entityAliases);
    store = new SqliteFactStore(openSqliteDatabase(':memory:'));
    projection = new FactsProjection(store, aliases);
  });

  it('learns again after the facts projection writes the user, and only then', async () => {
    await projection.apply([decision(glossing(1))]);
    expect(await learned(aliases, store, TENANT, USER)).toBeUndefined(); // one gloss: not learned

    // A write the projection did not make is not seen: the table is kept, not re-learned per call.
    await store.save([glossing(2)]);
    expect(await learned(aliases, store, TENANT, USER)).toBeUndefined();

    await projection.apply([decision(glossing(3))]);
    expect(await learned(aliases, store, TENANT, USER)).toBe('Blackwhale');
  });

  it('keeps users apart: a write of one user leaves the other kept', async () => {
    await projection.apply([decision(glossing(1)), decision(glossing(2)), decision(glossing(1, 'user-2'))]);
    expect(await learned(aliases, store, TENANT, USER)).toBe('Blackwhale');
    expect(await learned(aliases, store, TENANT, 'user-2')).toBeUndefined();
    await store.save([glossing(2, 'user-2')]);
    await projection.apply([decision(glossing(3))]);
    expect(await learned(aliases, store, TENANT, 'user-2')).toBeUndefined();
  });

  it('forgets the learned aliases with the user, and on truncate', async () => {
    await projection.apply([
      decision(glossing(1)),
      decision(glossing(2)),
      decision(glossing(1, 'user-2')),
      decision(glossing(2, 'user-2')),
    ]);
    expect(await learned(aliases, store, TENANT, USER)).toBe('Blackwhale');
    expect(await learned(aliases, store, TENANT, 'user-2')).toBe('Blackwhale');

    await projection.apply([forgotten(USER)]);
    expect(await learned(aliases, store, TENANT, USER)).toBeUndefined();
    expect(await learned(aliases, store, TENANT, 'user-2')).toBe('Blackwhale');

    await projection.truncate();
    expect(await learned(aliases, store, TENANT, 'user-2')).toBeUndefined();
  });

  it('keeps nothing in distributed mode, where the recall app does not see the resolver write', async () => {
    const distributed = new EntityAliases(
      engramOptions(
        loadConfig({
          ENGRAM_MODE: 'distributed',
          KAFKA_BROKERS: '127.0.0.1:9092',
          MONGODB_URI: 'mongodb://127.0.0.1:27017/',
          ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
          ENGRAM_MASTER_KEY: 'ab'.repeat(32),
        }),
      ).entityAliases,
    );
    await store.save([glossing(1)]);
    expect(await learned(distributed, store, TENANT, USER)).toBeUndefined();
    await store.save([glossing(2)]);
    expect(await learned(distributed, store, TENANT, USER)).toBe('Blackwhale');
  });

  it('hands back the memories it had to read, and none when the table was kept', async () => {
    await projection.apply([decision(glossing(1)), decision(glossing(2))]);
    expect((await aliases.ofUser(store, TENANT, USER)).memories?.map((m) => m.memoryId)).toEqual(['m1', 'm2']);
    expect((await aliases.ofUser(store, TENANT, USER)).memories).toBeNull();
  });

  it('does not keep a table learned from a read that a write overtook', async () => {
    // The real store, whose list() answers only once `release` is called: the write lands in between.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: SqliteFactStore = Object.create(store, {
      list: {
        value: async (query: Parameters<SqliteFactStore['list']>[0]) => {
          const rows = await store.list(query);
          await held;
          return rows;
        },
      },
    });
    const writer = new FactsProjection(slow, aliases);
    await writer.apply([decision(glossing(1))]);
    const read = learned(aliases, slow, TENANT, USER);
    await writer.apply([decision(glossing(2))]);
    release();
    expect(await read).toBeUndefined(); // learned from the read before the write
    expect(await learned(aliases, slow, TENANT, USER)).toBe('Blackwhale'); // and not kept
  });
});
