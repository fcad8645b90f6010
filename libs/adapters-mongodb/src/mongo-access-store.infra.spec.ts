import { minutesAfterStart, testAccessStore, uniqueName } from '@engram/testing';
import { MongoAccessStore } from './mongo-access-store.adapter';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('access');

testAccessStore(async () => MongoAccessStore.open(await openDb()));

describe('MongoAccessStore specifics', () => {
  let store: MongoAccessStore;
  let tenantId: string;
  const userId = 'user-1';

  beforeAll(async () => {
    store = await MongoAccessStore.open(await openDb(), { suffix: '_specifics' });
  });
  beforeEach(() => {
    tenantId = uniqueName('tenant');
  });

  it('finishes an event a crash left half applied, counting each memory once', async () => {
    const eventId = uniqueName('access-event');
    // As if a first attempt stopped after counting m1 only: event pending, m1 marked with it.
    await store.events.insertOne({ _id: eventId, tenantId, userId, memoryIds: ['m1', 'm2', 'm3'], at: minutesAfterStart(4), done: false });
    await store.stats.insertOne({
      _id: `${tenantId}:${userId}:m1`,
      tenantId,
      userId,
      memoryId: 'm1',
      hits: 1,
      lastAccess: `${String(Date.parse(minutesAfterStart(4)) + 8.64e15).padStart(17, '0')}|${minutesAfterStart(4)}`,
      pendingEvents: [eventId],
    });

    await store.record(eventId, tenantId, userId, ['m1', 'm2', 'm3'], minutesAfterStart(4));
    await store.record(eventId, tenantId, userId, ['m1', 'm2', 'm3'], minutesAfterStart(4));

    const stats = await store.get(tenantId, userId, ['m1', 'm2', 'm3']);
    expect([...stats.values()].map((s) => [s.memoryId, s.hits, s.lastAccessAt])).toEqual(
      expect.arrayContaining([
        ['m1', 1, minutesAfterStart(4)],
        ['m2', 1, minutesAfterStart(4)],
        ['m3', 1, minutesAfterStart(4)],
      ]),
    );
    expect(stats.size).toBe(3);
    expect(await store.events.findOne({ _id: eventId })).toMatchObject({ done: true });
    expect(await store.stats.countDocuments({ tenantId, userId, pendingEvents: eventId })).toBe(0);
  });

  it('clears marks a crash left after the event was done, without counting again', async () => {
    const eventId = uniqueName('access-event');
    await store.record(eventId, tenantId, userId, ['m1'], minutesAfterStart(1));
    await store.stats.updateOne({ _id: `${tenantId}:${userId}:m1` }, { $addToSet: { pendingEvents: eventId } });
    await store.record(eventId, tenantId, userId, ['m1'], minutesAfterStart(1));
    expect((await store.get(tenantId, userId, ['m1'])).get('m1')?.hits).toBe(1);
    expect(await store.stats.countDocuments({ tenantId, userId, pendingEvents: eventId })).toBe(0);
  });

  it('keeps the latest access by instant, whatever the ISO offset, and returns it as given', async () => {
    await store.record(uniqueName('e'), tenantId, userId, ['m1'], '2026-01-05T10:30:00.000+02:00'); // 08:30Z
    await store.record(uniqueName('e'), tenantId, userId, ['m1'], '2026-01-05T09:00:00.000Z');
    await store.record(uniqueName('e'), tenantId, userId, ['m1'], '2026-01-05T11:00:00.000+02:00'); // 09:00Z, a tie
    const m1 = (await store.get(tenantId, userId, ['m1'])).get('m1');
    expect(m1?.hits).toBe(3);
    expect(Date.parse(m1!.lastAccessAt)).toBe(Date.parse('2026-01-05T09:00:00.000Z'));
  });

  it('counts an event with many memories in one go', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    await store.record(uniqueName('e'), tenantId, userId, ids, minutesAfterStart(2));
    const stats = await store.get(tenantId, userId, ids);
    expect(stats.size).toBe(20);
    expect([...stats.values()].every((s) => s.hits === 1)).toBe(true);
  });
});
