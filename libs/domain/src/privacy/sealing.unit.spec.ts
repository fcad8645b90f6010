import { randomBytes } from 'node:crypto';
import {
  eventAssociatedData,
  isSealed,
  MasterKey,
  newDataKey,
  openJson,
  parseMasterKey,
  rewrapDataKey,
  sealJson,
  SealError,
  unwrapDataKey,
  wrapDataKey,
  WrongMasterKeyError,
} from './sealing';

describe('sealing an event payload', () => {
  const key = newDataKey();
  const here = eventAssociatedData('acme', 'u1', 'event-1');
  const payload = { text: '我对花生过敏 and my PIN is masked', items: [{ value: '花生' }] };

  it('opens with the key and the place it was sealed for, and shows none of the words', () => {
    const sealed = sealJson(key, payload, here);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.keyId).toBe(key.keyId);
    expect(JSON.stringify(sealed)).not.toMatch(/花生|PIN|text/);
    expect(openJson(key.key, sealed, here)).toEqual(payload);
  });

  it('uses a fresh IV every time: the same payload never seals to the same bytes', () => {
    expect(sealJson(key, payload, here).data).not.toBe(sealJson(key, payload, here).data);
  });

  it('refuses another key, another tenant, user or event, and any altered byte', () => {
    const sealed = sealJson(key, payload, here);
    expect(() => openJson(newDataKey().key, sealed, here)).toThrow(SealError);
    expect(() => openJson(key.key, sealed, eventAssociatedData('other', 'u1', 'event-1'))).toThrow(SealError);
    expect(() => openJson(key.key, sealed, eventAssociatedData('acme', 'u2', 'event-1'))).toThrow(SealError);
    expect(() => openJson(key.key, sealed, eventAssociatedData('acme', 'u1', 'event-2'))).toThrow(SealError);
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[20] ^= 1;
    expect(() => openJson(key.key, { ...sealed, data: bytes.toString('base64') }, here)).toThrow(SealError);
  });

  it('tells plaintext payloads from sealed ones', () => {
    expect(isSealed(payload)).toBe(false);
    expect(isSealed(null)).toBe(false);
    expect(isSealed({ sealed: 'aes-256-gcm', keyId: 'k' })).toBe(false);
  });
});

describe('wrapping data keys with the master key', () => {
  it('unwraps for the same tenant and user only, and names ENGRAM_MASTER_KEY when the master key differs', () => {
    const master = MasterKey.generate();
    const dataKey = newDataKey();
    const stored = wrapDataKey(master, 'acme', 'u1', dataKey);
    expect(stored.wrapped).not.toContain(dataKey.key.toString('base64'));
    expect(unwrapDataKey(master, 'acme', 'u1', stored).key.equals(dataKey.key)).toBe(true);
    expect(() => unwrapDataKey(master, 'acme', 'u2', stored)).toThrow(SealError);
    expect(() => unwrapDataKey(MasterKey.generate(), 'acme', 'u1', stored)).toThrow(WrongMasterKeyError);
    expect(() => unwrapDataKey(MasterKey.generate(), 'acme', 'u1', stored)).toThrow(/ENGRAM_MASTER_KEY/);
  });

  it('rotates: a key wrapped by the previous master key unwraps beside the current one, and rewraps under it', () => {
    const old = MasterKey.generate();
    const current = MasterKey.generate();
    const dataKey = newDataKey();
    const stored = wrapDataKey(old, 'acme', 'u1', dataKey);
    expect(unwrapDataKey(current, 'acme', 'u1', stored, [old]).key.equals(dataKey.key)).toBe(true);

    const rewrapped = rewrapDataKey(current, [old], 'acme', 'u1', stored);
    expect(rewrapped).toEqual({ keyId: dataKey.keyId, wrapped: expect.any(String), master: current.fingerprint });
    expect(unwrapDataKey(current, 'acme', 'u1', rewrapped).key.equals(dataKey.key)).toBe(true);
    expect(() => unwrapDataKey(old, 'acme', 'u1', rewrapped)).toThrow(WrongMasterKeyError);
    // Neither key wrapped it: both variables are named.
    expect(() => unwrapDataKey(MasterKey.generate(), 'acme', 'u1', stored, [MasterKey.generate()])).toThrow(
      /ENGRAM_MASTER_KEY .* ENGRAM_PREVIOUS_MASTER_KEY/,
    );
  });
});

describe('parseMasterKey', () => {
  const bytes = randomBytes(32);

  it('reads 32 bytes as hex or base64 (either alphabet, padded or not)', () => {
    for (const text of [
      bytes.toString('hex'),
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('base64').replace(/=$/, ''),
      ` ${bytes.toString('hex')}\n`,
    ]) {
      expect(parseMasterKey(text)?.equals(bytes)).toBe(true);
    }
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      'secret',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      'z'.repeat(64),
    ]) {
      expect(parseMasterKey(text)).toBeUndefined();
    }
  });
});
