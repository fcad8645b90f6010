import { openSqliteDatabase, SqliteKeyStore } from '@engram/adapters-sqlite';
import { MasterKey } from '@engram/domain';
import { makeTempDir } from '@engram/testing';
import type { KeyStore, UserRef } from '@engram/ports';
import { DataKeyRing } from './data-key-ring';

/*
 * What the ring answers without the store (the sealing boundary's way to seal and open an event
 * with no promise per event) is what `current` and `byId` would answer: never a key the store no
 * longer has, never a stale answer past the TTL.
 */

describe('DataKeyRing: what it knows without the store', () => {
  const dir = makeTempDir('engram-key-ring-');
  const db = openSqliteDatabase(dir.file('engram.db'));
  const store = new SqliteKeyStore(db, MasterKey.generate());
  let now = 0;
  const ring = new DataKeyRing(store, { ttlMs: 1_000, now: () => now });

  afterAll(() => {
    db.close();
    dir.remove();
  });

  it('knows a key once it was read, under its id only, until the TTL runs out', async () => {
    expect(ring.currentKnown('acme', 'ada')).toBeUndefined();
    const key = await ring.current('acme', 'ada');
    expect(ring.currentKnown('acme', 'ada')).toBe(key);
    expect(ring.byIdKnown('acme', 'ada', key.keyId)).toBe(key);
    expect(ring.byIdKnown('acme', 'ada', 'another-key')).toBeUndefined();
    expect(ring.currentKnown('acme', 'grace')).toBeUndefined();
    expect(ring.currentKnown('other-tenant', 'ada')).toBeUndefined();

    now += 1_000;
    expect(ring.currentKnown('acme', 'ada')).toBeUndefined();
    expect(ring.byIdKnown('acme', 'ada', key.keyId)).toBeUndefined();
    expect(await ring.byId('acme', 'ada', key.keyId)).toEqual(key);
    expect(ring.byIdKnown('acme', 'ada', key.keyId)).toEqual(key);
  });

  it('after a destroy: nothing known until the store is read, then known to be gone (null)', async () => {
    const key = await ring.current('acme', 'linus');
    await ring.destroy('acme', 'linus');
    expect(ring.byIdKnown('acme', 'linus', key.keyId)).toBeUndefined();
    expect(ring.currentKnown('acme', 'linus')).toBeUndefined();

    expect(await ring.byId('acme', 'linus', key.keyId)).toBeUndefined();
    expect(ring.byIdKnown('acme', 'linus', key.keyId)).toBeNull();
    expect(ring.currentKnown('acme', 'linus')).toBeUndefined();

    const renewed = await ring.current('acme', 'linus');
    expect(renewed.keyId).not.toBe(key.keyId);
    expect(ring.byIdKnown('acme', 'linus', key.keyId)).toBeUndefined();
    expect(await ring.byId('acme', 'linus', key.keyId)).toBeUndefined();
  });

  it('refresh reads the keys of every user it does not hold fresh in one request, and knows them after', async () => {
    const ada = await store.getOrCreate('acme', 'ada');
    const grace = await store.getOrCreate('acme', 'grace');
    const counted = { get: 0, getMany: 0, asked: [] as string[] };
    const countingStore: KeyStore = Object.assign(Object.create(store) as KeyStore, {
      get: (tenantId: string, userId: string) => (counted.get++, store.get(tenantId, userId)),
      getMany: (users: readonly UserRef[]) => (counted.getMany++, counted.asked.push(...users.map((u) => u.userId)), store.getMany(users)),
    });
    const fresh = new DataKeyRing(countingStore, { ttlMs: 1_000, now: () => now });
    await fresh.byId('acme', 'ada', ada.keyId);

    const users = ['ada', 'grace', 'nobody', 'grace'].map((userId) => ({ tenantId: 'acme', userId }));
    await fresh.refresh(users);
    expect(counted).toEqual({ get: 1, getMany: 1, asked: ['grace', 'nobody'] });
    expect(fresh.byIdKnown('acme', 'grace', grace.keyId)).toEqual(grace);
    expect(fresh.byIdKnown('acme', 'nobody', 'any')).toBeNull();
    await fresh.refresh(users);
    expect(counted.getMany).toBe(1);
  });
});
