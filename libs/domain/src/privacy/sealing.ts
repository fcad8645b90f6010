import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import type { DataKey } from '@engram/ports';

/**
 * Crypto-shredding's arithmetic, with Node's crypto and nothing else: AES-256-GCM, a random
 * 12-byte IV per sealed value, associated data that binds the ciphertext to where it belongs
 * (a tenant, a user, an event), so it cannot be moved to another event or user and still open.
 * No I/O: keys come in, ciphertext goes out (docs/security.md).
 */

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const CIPHER = 'aes-256-gcm';

/** A sealed value: what an event's payload becomes in the log. JSON-safe. */
export interface Sealed {
  /** The cipher, and the marker that tells a sealed payload from a plaintext one. */
  readonly sealed: 'aes-256-gcm';
  readonly keyId: string;
  /** base64: 12-byte IV, then ciphertext, then the 16-byte tag. */
  readonly data: string;
}

export function isSealed(value: unknown): value is Sealed {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.sealed === CIPHER && typeof v.keyId === 'string' && typeof v.data === 'string';
}

/** Associated data of an event's payload: the tenant, user and event it belongs to. */
export function eventAssociatedData(tenantId: string, userId: string, eventId: string): string {
  return `engram-event/1\u0000${tenantId}\u0000${userId}\u0000${eventId}`;
}

/** Associated data of a wrapped data key: whose key it is, and which. */
export function dataKeyAssociatedData(tenantId: string, userId: string, keyId: string): string {
  return `engram-data-key/1\u0000${tenantId}\u0000${userId}\u0000${keyId}`;
}

/**
 * IVs come from the CSPRNG in blocks: asking it for 12 bytes per seal cost more than the cipher.
 * Random 96-bit IVs either way; each is used once.
 */
const IV_BLOCK = 4096;
let ivPool = Buffer.alloc(0);
let ivNext = 0;

function nextIv(): Buffer {
  if (ivNext + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_BYTES * IV_BLOCK);
    ivNext = 0;
  }
  const iv = ivPool.subarray(ivNext, ivNext + IV_BYTES);
  ivNext += IV_BYTES;
  return iv;
}

/** Imported once per key buffer, not on every cipher: a key's bytes are never changed. */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObjectOf(key: Buffer): KeyObject {
  let object = keyObjects.get(key);
  if (!object) keyObjects.set(key, (object = createSecretKey(key)));
  return object;
}

/** A string is encrypted as its UTF-8 bytes, without a copy of them first; the result is one buffer. */
function encrypt(key: Buffer, plaintext: Buffer | string, associatedData: string): Buffer {
  const iv = nextIv();
  const cipher = createCipheriv(CIPHER, keyObjectOf(key), iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext);
  const rest = cipher.final(); // GCM releases everything in update: empty
  return Buffer.concat(rest.length === 0 ? [iv, body, cipher.getAuthTag()] : [iv, body, rest, cipher.getAuthTag()]);
}

/** Throws when the key, the associated data or a single byte is not what sealed it. */
function decrypt(key: Buffer, sealed: Buffer, associatedData: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new SealError('sealed value too short');
  const decipher = createDecipheriv(CIPHER, keyObjectOf(key), sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const body = decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES));
    const rest = decipher.final(); // GCM releases everything in update: this checks the tag
    return rest.length === 0 ? body : Buffer.concat([body, rest]);
  } catch {
    throw new SealError('sealed value does not open: wrong key, wrong place, or altered');
  }
}

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

export function sealText(dataKey: DataKey, text: string, associatedData: string): Sealed {
  return { sealed: CIPHER, keyId: dataKey.keyId, data: encrypt(dataKey.key, text, associatedData).toString('base64') };
}

export function openText(key: Buffer, sealed: Sealed, associatedData: string): string {
  return decrypt(key, Buffer.from(sealed.data, 'base64'), associatedData).toString('utf8');
}

export function sealJson(dataKey: DataKey, value: unknown, associatedData: string): Sealed {
  return sealText(dataKey, JSON.stringify(value), associatedData);
}

export function openJson(key: Buffer, sealed: Sealed, associatedData: string): unknown {
  return JSON.parse(openText(key, sealed, associatedData));
}

export function newDataKey(): DataKey {
  return { keyId: randomBytes(12).toString('base64url'), key: randomBytes(KEY_BYTES) };
}

/**
 * The key that wraps every data key at rest (ENGRAM_MASTER_KEY). Its fingerprint is stored with
 * each wrapped key, so a store opened with the wrong master key says so instead of failing obscurely.
 */
export class MasterKey {
  readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a master key is ${KEY_BYTES} bytes, not ${key.length}`);
    this.fingerprint = createHash('sha256').update('engram-master-key/1').update(key).digest('hex').slice(0, 16);
  }

  static generate(): MasterKey {
    return new MasterKey(randomBytes(KEY_BYTES));
  }

  wrap(dataKey: Buffer, associatedData: string): string {
    return encrypt(this.key, dataKey, associatedData).toString('base64');
  }

  unwrap(wrapped: string, associatedData: string): Buffer {
    return decrypt(this.key, Buffer.from(wrapped, 'base64'), associatedData);
  }

  /** For writing the generated key to its file; never logged. */
  encoded(): string {
    return this.key.toString('base64');
  }
}

/**
 * ENGRAM_MASTER_KEY's value: 32 bytes as 64 hex digits or as base64 (padded or not, either
 * alphabet). Undefined when it is neither, so configuration can name the variable.
 */
export function parseMasterKey(text: string): Buffer | undefined {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  return undefined;
}

/** A stored data key that none of the configured master keys wrapped. */
export class WrongMasterKeyError extends Error {
  constructor(stored: string, configured: string, previous: readonly string[] = []) {
    super(
      `a data key was wrapped by master key ${stored}, but ENGRAM_MASTER_KEY is ${configured}` +
        (previous.length > 0 ? ` and ENGRAM_PREVIOUS_MASTER_KEY is ${previous.join(', ')}` : '') +
        ': start with the master key this data was written with' +
        (previous.length > 0 ? '' : ' (during a rotation, the old one as ENGRAM_PREVIOUS_MASTER_KEY)'),
    );
    this.name = 'WrongMasterKeyError';
  }
}

/** A data key as key stores keep it: wrapped by the master key, bound to its tenant and user. */
export interface WrappedDataKey {
  readonly keyId: string;
  readonly wrapped: string;
  /** The fingerprint of the master key that wrapped it. */
  readonly master: string;
}

export function wrapDataKey(master: MasterKey, tenantId: string, userId: string, dataKey: DataKey): WrappedDataKey {
  return {
    keyId: dataKey.keyId,
    wrapped: master.wrap(dataKey.key, dataKeyAssociatedData(tenantId, userId, dataKey.keyId)),
    master: master.fingerprint,
  };
}

/**
 * Unwraps with the master key whose fingerprint the stored key names: `master` (ENGRAM_MASTER_KEY),
 * or during a rotation one of `previous` (ENGRAM_PREVIOUS_MASTER_KEY), so a store reads rows
 * wrapped by either while they are rewrapped.
 */
export function unwrapDataKey(
  master: MasterKey,
  tenantId: string,
  userId: string,
  stored: WrappedDataKey,
  previous: readonly MasterKey[] = [],
): DataKey {
  const wrapper = masterKeyOf(stored, master, previous);
  return { keyId: stored.keyId, key: wrapper.unwrap(stored.wrapped, dataKeyAssociatedData(tenantId, userId, stored.keyId)) };
}

/** The same data key wrapped by `master` instead of the previous key that wrapped it (a rotation). */
export function rewrapDataKey(
  master: MasterKey,
  previous: readonly MasterKey[],
  tenantId: string,
  userId: string,
  stored: WrappedDataKey,
): WrappedDataKey {
  return wrapDataKey(master, tenantId, userId, unwrapDataKey(master, tenantId, userId, stored, previous));
}

/** The master key among `master` and `previous` that wrapped `stored`; WrongMasterKeyError if none did. */
export function masterKeyOf(stored: Pick<WrappedDataKey, 'master'>, master: MasterKey, previous: readonly MasterKey[] = []): MasterKey {
  if (stored.master === master.fingerprint) return master;
  const earlier = previous.find((key) => key.fingerprint === stored.master);
  if (!earlier)
    throw new WrongMasterKeyError(
      stored.master,
      master.fingerprint,
      previous.map((key) => key.fingerprint),
    );
  return earlier;
}
