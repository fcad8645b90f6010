import { MasterKey } from '@engram/domain';
import type { KeyStore } from '@engram/ports';
import { uniqueName } from './fixtures';

export interface KeyStoreContractOptions {
  /**
   * Opens a store over the one storage the suite uses (every call sees the same keys), its data
   * keys wrapped by `master`.
   */
  open(master: MasterKey): Promise<KeyStore>;
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
          expect({ encoding, plaintextKeyStored: stored.includes(created.key.toString(encoding)) }).toEqual({ encoding, plaintextKeyStored: false });
        }

        const impostor = await options.open(MasterKey.generate());
        await expect(impostor.get(tenantId, 'u1')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
        await expect(impostor.getOrCreate(tenantId, 'u1')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
      },
      testTimeoutMs,
    );
  });
}
