import { MasterKey } from '@engram/domain';
import type { KeyStore } from '@engram/ports';
import { uniqueName } from './fixtures';

export interface KeyStoreContractOptions {
  /**
   * Opens a store over the one storage the suite uses (every call sees the same keys), its data
   * keys wrapped by `master`; keys still wrapped by one of `previous` are read too (a rotation).
   */
  open(master: MasterKey, previous?: readonly MasterKey[]): Promise<KeyStore>;
  /** Everything the storage holds, as text: the plaintext keys must not be in it. */
  dump(): Promise<string>;
  teardown?: () => Promise<void>;
  testTimeoutMs?: number;
}

/** The key-store contract (SQLite, MongoDB; a KMS adapter would run it too). */
export function testKeyStore(options: KeyStoreContractOptions): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('KeyStore contract', () => {
    const master = MasterKey.generate();
    let store: KeyStore;
    let tenantId: string;

    beforeAll(async () => {
      store = await options.open(master);
    });
    beforeEach(() => {
      tenantId = uniqueName('tenant');
    });
    afterAll(async () => {
      await options.teardown?.();
    });

    it(
      'creates a 32-byte key on first use and hands out the same key after',
      async () => {
        expect(await store.get(tenantId, 'u1')).toBeUndefined();
        const created = await store.getOrCreate(tenantId, 'u1');
        expect(created.key).toHaveLength(32);
        expect(created.keyId).toEqual(expect.any(String));
        const again = await store.getOrCreate(tenantId, 'u1');
        const read = await store.get(tenantId, 'u1');
        expect(again.keyId).toBe(created.keyId);
        expect(again.key.equals(created.key)).toBe(true);
        expect(read?.keyId).toBe(created.keyId);
        expect(read?.key.equals(created.key)).toBe(true);
      },
      testTimeoutMs,
    );

    it(
      'gives concurrent first callers one key',
      async () => {
        const keys = await Promise.all(Array.from({ length: 6 }, () => store.getOrCreate(tenantId, 'racer')));
        expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
        expect(new Set(keys.map((k) => k.key.toString('hex'))).size).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'getMany reads several users’ keys at once, in the order asked, across tenants, undefined for a user without one',
      async () => {
        const otherTenant = uniqueName('tenant');
        const a = await store.getOrCreate(tenantId, 'u1');
        const b = await store.getOrCreate(otherTenant, 'u1');
        const c = await store.getOrCreate(tenantId, 'u2');
        await store.getOrCreate(tenantId, 'gone');
        await store.destroy(tenantId, 'gone');
        const read = await store.getMany([
          { tenantId: otherTenant, userId: 'u1' },
          { tenantId, userId: 'never' },
          { tenantId, userId: 'u2' },
          { tenantId, userId: 'gone' },
          { tenantId, userId: 'u1' },
          { tenantId: otherTenant, userId: 'u1' },
        ]);
        expect(read.map((key) => key?.keyId)).toEqual([b.keyId, undefined, c.keyId, undefined, a.keyId, b.keyId]);
        expect(read[4]?.key.equals(a.key)).toBe(true);
        expect(await store.getMany([])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'keeps users and tenants apart',
      async () => {
        const otherTenant = uniqueName('tenant');
        const a = await store.getOrCreate(tenantId, 'u1');
        const b = await store.getOrCreate(tenantId, 'u2');
        const c = await store.getOrCreate(otherTenant, 'u1');
        expect(new Set([a.keyId, b.keyId, c.keyId]).size).toBe(3);
        expect(a.key.equals(b.key) || a.key.equals(c.key) || b.key.equals(c.key)).toBe(false);
      },
      testTimeoutMs,
    );

    it(
      'destroys one user’s key for good, idempotently; a new key for that user is another key',
      async () => {
        const doomed = await store.getOrCreate(tenantId, 'u1');
        const kept = await store.getOrCreate(tenantId, 'u2');
        await store.destroy(tenantId, 'u1');
        await store.destroy(tenantId, 'u1');
        await store.destroy(tenantId, 'never-had-one');
        expect(await store.get(tenantId, 'u1')).toBeUndefined();
        expect((await store.get(tenantId, 'u2'))?.keyId).toBe(kept.keyId);

        const reborn = await store.getOrCreate(tenantId, 'u1');
        expect(reborn.keyId).not.toBe(doomed.keyId);
        expect(reborn.key.equals(doomed.key)).toBe(false);
        expect({ destroyedKeyStored: (await options.dump()).includes(doomed.keyId) }).toEqual({ destroyedKeyStored: false });
      },
      testTimeoutMs,
    );

    it(
      'keeps keys across reopening, stored wrapped: never in plaintext, unreadable under another master key',
      async () => {
        const created = await store.getOrCreate(tenantId, 'u1');
        const reopened = await options.open(master);
        expect((await reopened.get(tenantId, 'u1'))?.key.equals(created.key)).toBe(true);

        const stored = await options.dump();
        expect(stored.includes(created.keyId)).toBe(true);
        for (const encoding of ['hex', 'base64', 'base64url', 'latin1'] as const) {
          expect({ encoding, plaintextKeyStored: stored.includes(created.key.toString(encoding)) }).toEqual({
            encoding,
            plaintextKeyStored: false,
          });
        }

        const impostor = await options.open(MasterKey.generate());
        await expect(impostor.get(tenantId, 'u1')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
        await expect(impostor.getOrCreate(tenantId, 'u1')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
      },
      testTimeoutMs,
    );

    // The two rotation tests come last: the second moves every key of the storage to a new master key.
    it(
      'refuses to rotate, changing nothing, while a key is wrapped by a master key it was not given',
      async () => {
        const kept = await store.getOrCreate(tenantId, 'u1');
        const stranger = await options.open(MasterKey.generate());
        await stranger.getOrCreate(tenantId, 'stranger');
        const next = MasterKey.generate();
        await expect((await options.open(next, [master])).rewrapAll()).rejects.toThrow(/ENGRAM_PREVIOUS_MASTER_KEY/);
        expect((await store.get(tenantId, 'u1'))?.key.equals(kept.key)).toBe(true);
        await stranger.destroy(tenantId, 'stranger');
      },
      testTimeoutMs,
    );

    it(
      'rotates the master key: keys under either read during the change, every old one rewrapped (resumably, once), then the new key alone reads them',
      async () => {
        const first = await store.getOrCreate(tenantId, 'u1');
        const second = await store.getOrCreate(tenantId, 'u2');
        const next = MasterKey.generate();
        const rotating = await options.open(next, [master]);
        expect((await rotating.get(tenantId, 'u1'))?.key.equals(first.key)).toBe(true);
        const created = await rotating.getOrCreate(tenantId, 'u3');
        await expect(store.get(tenantId, 'u3')).rejects.toThrow(/ENGRAM_MASTER_KEY/); // made under the new key

        // Interrupted after its first batch, then run again: the rest, and nothing twice.
        const interrupted = rotating.rewrapAll({
          batchSize: 1,
          onProgress: () => {
            throw new Error('interrupted');
          },
        });
        await expect(interrupted).rejects.toThrow('interrupted');
        const rest = await rotating.rewrapAll({ batchSize: 2 });
        expect(rest.total).toBeGreaterThanOrEqual(1); // u1 or u2 at least was left
        expect(rest.rewrapped).toBe(rest.total);
        expect(await rotating.rewrapAll()).toEqual({ rewrapped: 0, total: 0 });

        const rotated = await options.open(next);
        for (const [userId, key] of [
          ['u1', first],
          ['u2', second],
          ['u3', created],
        ] as const) {
          expect({ userId, same: (await rotated.get(tenantId, userId))?.key.equals(key.key) }).toEqual({ userId, same: true });
        }
        await expect(store.get(tenantId, 'u1')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
        expect({ oldMasterKeyStored: (await options.dump()).includes(master.fingerprint) }).toEqual({ oldMasterKeyStored: false });
      },
      testTimeoutMs,
    );
  });
}
