import * as fs from 'node:fs';
import { makeTempDir } from '@engram/testing';
import { finishKeyFileRotation, loadMasterKey, loadMasterKeys, MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, rotationKeys } from './master-key';

describe('loadMasterKey', () => {
  const dir = makeTempDir('engram-master-');
  afterAll(() => dir.remove());
  const embedded = (extra: { ENGRAM_MASTER_KEY?: string } = {}) => ({
    ENGRAM_MODE: 'embedded' as const,
    ENGRAM_DATA_DIR: dir.path,
    ...extra,
  });

  it('embedded without ENGRAM_MASTER_KEY: generates master.key (0600) on first start and reads the same key after', () => {
    const first = loadMasterKey(embedded());
    const file = dir.file(MASTER_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadMasterKey(embedded()).fingerprint).toBe(first.fingerprint);
  });

  it('takes ENGRAM_MASTER_KEY over the file, in either mode', () => {
    const hex = 'cd'.repeat(32);
    const fromHex = loadMasterKey(embedded({ ENGRAM_MASTER_KEY: hex }));
    expect(fromHex.fingerprint).not.toBe(loadMasterKey(embedded()).fingerprint);
    const fromBase64 = loadMasterKey({
      ENGRAM_MODE: 'distributed',
      ENGRAM_DATA_DIR: dir.path,
      ENGRAM_MASTER_KEY: Buffer.from(hex, 'hex').toString('base64'),
    });
    expect(fromBase64.fingerprint).toBe(fromHex.fingerprint);
  });

  it('refuses a damaged master.key, naming the file and the variable', () => {
    const other = makeTempDir('engram-master-bad-');
    try {
      fs.writeFileSync(other.file(MASTER_KEY_FILE), 'not a key\n');
      expect(() => loadMasterKey({ ENGRAM_MODE: 'embedded', ENGRAM_DATA_DIR: other.path })).toThrow(
        /master\.key: not a master key .* ENGRAM_MASTER_KEY/,
      );
    } finally {
      other.remove();
    }
  });

  it('reads the rotation keys: ENGRAM_PREVIOUS_MASTER_KEY, and master.key.next while a rotation of master.key is unfinished', () => {
    const other = makeTempDir('engram-master-rotate-');
    try {
      const config = { ENGRAM_MODE: 'embedded' as const, ENGRAM_DATA_DIR: other.path };
      const old = loadMasterKey(config);
      expect(loadMasterKeys(config)).toEqual({ current: old, previous: [] });
      const previousHex = 'ef'.repeat(32);
      expect(
        loadMasterKeys({ ...config, ENGRAM_MASTER_KEY: 'cd'.repeat(32), ENGRAM_PREVIOUS_MASTER_KEY: previousHex }).previous.map(
          (k) => k.fingerprint,
        ),
      ).toEqual([loadMasterKey({ ...config, ENGRAM_MASTER_KEY: previousHex }).fingerprint]);

      const rotation = rotationKeys(config);
      expect(rotation.previous.map((k) => k.fingerprint)).toEqual([old.fingerprint]);
      expect(fs.statSync(other.file(NEXT_MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(rotationKeys(config).current.fingerprint).toBe(rotation.current.fingerprint); // a rerun goes on with the same key
      // Interrupted: engram reads keys under either file.
      expect(loadMasterKeys(config).current.fingerprint).toBe(old.fingerprint);
      expect(loadMasterKeys(config).previous.map((k) => k.fingerprint)).toEqual([rotation.current.fingerprint]);

      finishKeyFileRotation(config);
      expect(fs.existsSync(other.file(NEXT_MASTER_KEY_FILE))).toBe(false);
      expect(loadMasterKeys(config)).toEqual({
        current: expect.objectContaining({ fingerprint: rotation.current.fingerprint }),
        previous: [],
      });
    } finally {
      other.remove();
    }
  });
});
