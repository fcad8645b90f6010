import { openSqliteDatabase, SqliteKeyStore } from '@engram/adapters-sqlite';
import { MasterKey } from '@engram/domain';
import { makeTempDir } from '@engram/testing';
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
});
