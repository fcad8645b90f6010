import { aSessionTurn, testSessionStore, uniqueName } from '@engram/testing';
import { MongoSessionStore } from './mongo-session-store.adapter';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('sessions');

testSessionStore(async () => MongoSessionStore.open(await openDb()));

describe('MongoSessionStore specifics', () => {
  let store: MongoSessionStore;
  let tenantId: string;
  const userId = 'user-1';
  const sessionId = 'session-1';

  beforeAll(async () => {
    store = await MongoSessionStore.open(await openDb(), { suffix: '_specifics' });
  });
  beforeEach(() => {
    tenantId = uniqueName('tenant');
  });

  it('keeps insertion order across appends and users in one batch, and the first copy of a turn', async () => {
    const at = '2026-01-05T09:00:00.000Z';
    const turn = (text: string, user = userId) => aSessionTurn({ tenantId, userId: user, sessionId, occurredAt: at, text });
    const dup = turn('first copy');
    await store.append([turn('a'), turn('x', 'user-2'), dup, { ...dup, text: 'second copy' }, turn('y', 'user-2')]);
    await store.append([turn('b'), turn('z', 'user-2')]);
    const texts = async (user: string) => (await store.recent(tenantId, user, sessionId, 10)).map((t) => t.text);
    expect(await texts(userId)).toEqual(['a', 'first copy', 'b']);
    expect(await texts('user-2')).toEqual(['x', 'y', 'z']);
  });

  it('orders by the instant of occurredAt, also when written with an offset', async () => {
    const later = aSessionTurn({ tenantId, userId, sessionId, text: 'later', occurredAt: '2026-01-05T10:30:00.000+02:00' });
    const earlier = aSessionTurn({ tenantId, userId, sessionId, text: 'earlier', occurredAt: '2026-01-05T08:00:00.000Z' });
    await store.append([later, earlier]);
    expect((await store.recent(tenantId, userId, sessionId, 10)).map((t) => t.text)).toEqual(['earlier', 'later']);
  });

  it('returns nothing for a limit below 1 and floors a fractional one', async () => {
    await store.append(
      [0, 1, 2].map((i) => aSessionTurn({ tenantId, userId, sessionId, text: `t${i}`, occurredAt: `2026-01-05T09:0${i}:00.000Z` })),
    );
    expect(await store.recent(tenantId, userId, sessionId, 0.5)).toEqual([]);
    expect(await store.recent(tenantId, userId, sessionId, -1)).toEqual([]);
    expect((await store.recent(tenantId, userId, sessionId, 2.9)).map((t) => t.text)).toEqual(['t1', 't2']);
  });

  it('forgets the user’s insertion counter with the user', async () => {
    await store.append([aSessionTurn({ tenantId, userId, sessionId })]);
    expect(await store.sequences.countDocuments({ tenantId, userId })).toBe(1);
    await store.deleteUser(tenantId, userId);
    expect(await store.sequences.countDocuments({ tenantId, userId })).toBe(0);
  });

  it('appends a batch of many users with three commands: the counters bumped together, read together, the turns inserted', async () => {
    const users = Array.from({ length: 12 }, (_, u) => `batch-${u}`);
    const at = (i: number) => `2026-01-05T09:00:0${i}.000Z`;
    const batch = (round: number) =>
      users.flatMap((user) =>
        [0, 1].map((i) =>
          aSessionTurn({ tenantId, userId: user, sessionId, turnId: `r${round}-${i}`, text: `${round}${i}`, occurredAt: at(0) }),
        ),
      );
    const client = (await openDb()).client;
    const commands: string[] = [];
    const count = (event: { commandName: string }) => commands.push(event.commandName);
    client.on('commandStarted', count);
    try {
      await store.append(batch(1));
      expect(commands).toEqual(['update', 'find', 'insert']);
    } finally {
      client.off('commandStarted', count);
    }
    await store.append(batch(2));
    // Every user's turns in insertion order, each block after the one before (same occurredAt: seq decides).
    for (const user of users) {
      expect((await store.recent(tenantId, user, sessionId, 10)).map((t) => t.text)).toEqual(['10', '11', '20', '21']);
    }
  }, 60_000);
});
