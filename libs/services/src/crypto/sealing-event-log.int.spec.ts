import { openSqliteDatabase, SqliteEventLog, SqliteKeyStore } from '@engram/adapters-sqlite';
import type { EngramEvent, TurnRecorded, TurnScreened, UserForgotten } from '@engram/contracts';
import { MasterKey } from '@engram/domain';
import type { ConsumedMessage, EventLog, KeyStore, UserRef } from '@engram/ports';
import { makeTempDir, uniqueName } from '@engram/testing';
import { consumeUpTo } from '../transport/consume-up-to';
import { DataKeyRing } from './data-key-ring';
import { SealingEventLog } from './sealing-event-log';

/*
 * The sealing boundary over the real embedded log and key store: what is stored is ciphertext,
 * what consumers get is the event; a destroyed key makes the user's events arrive shredded
 * (skipped, positions kept), never as errors; a plaintext event from before stays readable.
 */

const tenantId = 'acme';
const at = '2026-11-30T08:00:00.000Z';

function turn(userId: string, turnId: string, text: string): TurnRecorded {
  const eventId = `turn-${userId}-${turnId}`;
  return {
    eventId,
    type: 'TurnRecorded',
    schemaVersion: 2,
    tenantId,
    userId,
    occurredAt: at,
    recordedAt: at,
    causationId: null,
    correlationId: eventId,
    payload: { sessionId: 's1', turnId, role: 'user', text },
  };
}

function screened(of: TurnRecorded): TurnScreened {
  return {
    ...of,
    eventId: `screened-${of.eventId}`,
    type: 'TurnScreened',
    schemaVersion: 1,
    causationId: of.eventId,
    payload: { ...of.payload, verdict: 'accepted', reasons: [], signals: [], ephemeral: false, masked: [], screenerVersion: 'test' },
  };
}

function forgotten(userId: string): UserForgotten {
  const eventId = uniqueName('forget');
  return {
    eventId,
    type: 'UserForgotten',
    schemaVersion: 1,
    tenantId,
    userId,
    occurredAt: at,
    recordedAt: at,
    causationId: null,
    correlationId: eventId,
    payload: { requestedAt: at },
  };
}

const key = (e: EngramEvent) => `${e.tenantId}:${e.userId}`;

describe('SealingEventLog over the embedded log and key store', () => {
  const dir = makeTempDir('engram-sealing-');
  const db = openSqliteDatabase(dir.file('engram.db'));
  const inner = new SqliteEventLog(db, { lingerMs: 0 });
  const store = new SqliteKeyStore(db, MasterKey.generate());
  const keys = new DataKeyRing(store);
  let undecryptable = 0;
  const log = new SealingEventLog(inner, keys, { onUndecryptable: () => undecryptable++ });

  afterAll(async () => {
    await log.close();
    db.close();
    dir.remove();
  });

  async function readAll(from: EventLog, topic: string): Promise<ConsumedMessage[]> {
    const messages: ConsumedMessage[] = [];
    await consumeUpTo(from, topic, uniqueName('reader'), await from.endPosition(topic), async (batch) => {
      messages.push(...batch);
    });
    return messages;
  }

  async function append(topic: string, events: readonly EngramEvent[], to: EventLog = log): Promise<void> {
    await to.append(
      topic,
      events.map((e) => ({ key: key(e), value: e })),
    );
  }

  it('stores ciphertext bound to the event and hands consumers the event as it was appended', async () => {
    const topic = uniqueName('turns');
    const event = turn('u1', 't1', '我对花生过敏, remember Quillbramble');
    await append(topic, [event]);

    const [stored] = await readAll(inner, topic);
    expect(stored.raw).not.toMatch(/花生|Quillbramble|text/);
    expect(stored.value).toMatchObject({
      eventId: event.eventId,
      type: 'TurnRecorded',
      tenantId,
      userId: 'u1',
      payload: { sealed: 'aes-256-gcm' },
    });

    const [opened] = await readAll(log, topic);
    expect(opened.value).toEqual(event);
    expect(opened.shredded).toBeUndefined();
  });

  it('delivers a plaintext event from before sealing unchanged, and a payload moved to another event as invalid', async () => {
    const topic = uniqueName('turns');
    const legacy = turn('u1', 'old', 'written before sealing');
    await append(topic, [legacy], inner);
    await append(topic, [turn('u1', 't2', 'sealed one')]);
    const [, sealed] = await readAll(inner, topic);
    const moved = { ...(sealed.value as object), eventId: 'another-event' };
    await inner.append(topic, [{ key: 'acme:u1', value: moved }]);

    const [first, second, third] = await readAll(log, topic);
    expect(first.value).toEqual(legacy);
    expect((second.value as TurnRecorded).payload.text).toBe('sealed one');
    expect(third.value).toBeUndefined(); // parseEvent refuses it: dead-lettered as invalid, not forgotten
    expect(third.shredded).toBeUndefined();
  });

  it('after the key is destroyed, delivers the user’s events shredded (counted), the tombstone whole, and other users untouched', async () => {
    const topic = uniqueName('turns');
    await append(topic, [turn('gone', 't1', 'secret one'), turn('stays', 't1', 'kept words'), turn('gone', 't2', 'secret two')]);
    const tombstone = forgotten('gone');
    await append(topic, [tombstone]);
    await keys.destroy(tenantId, 'gone');
    const before = undecryptable;

    const messages = await readAll(log, topic);
    expect(messages.map((m) => m.offset)).toEqual([0, 1, 2, 3]);
    expect(messages.map((m) => m.shredded ?? false)).toEqual([true, false, true, false]);
    expect((messages[1].value as TurnRecorded).payload.text).toBe('kept words');
    expect(messages[3].value).toEqual(tombstone);
    expect(undecryptable - before).toBe(2);
  });

  it('a returning user gets a new key: new events open, the old ones stay shredded', async () => {
    const topic = uniqueName('turns');
    await append(topic, [turn('back', 't1', 'before forgetting')]);
    await keys.destroy(tenantId, 'back');
    await append(topic, [forgotten('back'), turn('back', 't2', 'after coming back')]);

    const messages = await readAll(log, topic);
    expect(messages.map((m) => m.shredded ?? false)).toEqual([true, false, false]);
    expect((messages[2].value as TurnRecorded).payload.text).toBe('after coming back');
  });

  it('seals what is derived from an event with the key that opened it: forgotten in flight, it opens for no one, even after the user comes back', async () => {
    const turns = uniqueName('turns');
    const derived = uniqueName('screened');
    const source = turn('racing', 't1', 'said just before being forgotten');
    await append(turns, [source]);
    const [opened] = await readAll(log, turns); // a stage has it in hand…
    await keys.destroy(tenantId, 'racing'); // …when the user is forgotten
    await append(turns, [turn('racing', 't2', 'back again')]); // and comes back under a new key
    await append(derived, [screened(opened.value as TurnRecorded)]);

    const [out] = await readAll(log, derived);
    expect(out.shredded).toBe(true);
    const [fresh] = (await readAll(log, turns)).filter((m) => !m.shredded);
    expect((fresh.value as TurnRecorded).payload.text).toBe('back again');
  });
  it('another process opens a batch in order whose keys it must read from the store partway through (all in one read), and one it holds', async () => {
    const topic = uniqueName('turns');
    const events = [
      turn('held', 't1', 'first'),
      turn('unread', 't1', 'second'),
      turn('held', 't2', 'third'),
      turn('unread2', 't1', 'fourth'),
      forgotten('gone-before'),
    ];
    await append(topic, events);
    // Another process: its own ring over the same store, whose reads are counted.
    const reads = { get: 0, getMany: 0 };
    const counted: KeyStore = Object.assign(Object.create(store) as KeyStore, {
      get: (tenantId: string, userId: string) => (reads.get++, store.get(tenantId, userId)),
      getMany: (users: readonly UserRef[]) => (reads.getMany++, store.getMany(users)),
    });
    const otherRing = new DataKeyRing(counted);
    await otherRing.current(tenantId, 'held');
    Object.assign(reads, { get: 0, getMany: 0 });
    const other = new SealingEventLog(inner, otherRing);

    const messages = await readAll(other, topic);
    expect(messages.map((m) => m.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(messages.map((m) => m.value)).toEqual(events);
    expect(messages.map((m) => m.shredded ?? false)).toEqual([false, false, false, false, false]);
    // The two users it did not hold, read together: one request for the batch, none a user.
    expect(reads).toEqual({ get: 0, getMany: 1 });
  });
});
