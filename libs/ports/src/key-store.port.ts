import type { UserRef } from './fact-store.port';

/** A user's data key, plaintext, as the key store hands it out; `keyId` names it in ciphertext. */
export interface DataKey {
  readonly keyId: string;
  readonly key: Buffer;
}

/**
 * Per-(tenant, user) data keys for crypto-shredding: every text-bearing event is sealed with its
 * user's key, and forgetting the user destroys the key. Stored wrapped by the master key
 * (SQLite table embedded, MongoDB collection distributed); a KMS adapter implements the same
 * calls by keeping KMS-encrypted keys and asking the KMS to unwrap them (and, to rotate, to
 * re-encrypt them).
 *
 * A store is opened with the master key (ENGRAM_MASTER_KEY) and, during a rotation, the previous
 * one (ENGRAM_PREVIOUS_MASTER_KEY): it reads keys wrapped by either, wraps new keys with the
 * current one, and `rewrapAll` moves the rest over.
 */
export const KeyStore = Symbol('KeyStore');

export interface KeyStore {
  /** The user's key, created on first use. Concurrent callers (several processes too) get the same key. */
  getOrCreate(tenantId: string, userId: string): Promise<DataKey>;
  /** The user's key, or undefined when there is none (never created, or destroyed). */
  get(tenantId: string, userId: string): Promise<DataKey | undefined>;
  /**
   * What `get` gives for each of these users, in their order, read together (one request where the
   * store is remote): what a consumed batch's events are opened with.
   */
  getMany(users: readonly UserRef[]): Promise<(DataKey | undefined)[]>;
  /** Destroys the user's key for good; idempotent. A later getOrCreate makes a new key under a new id. */
  destroy(tenantId: string, userId: string): Promise<void>;
  /**
   * Master-key rotation: rewraps every key not wrapped by the current master key with it, reading
   * each with the previous master key that wrapped it. Resumable and idempotent: each stored key
   * records its master key's fingerprint, so a rerun touches only keys still under another one.
   * Refuses (WrongMasterKeyError, before changing anything) when a key was wrapped by a master key
   * the store was not given. Safe beside running processes that were given both keys: a key
   * destroyed meanwhile stays destroyed, one created meanwhile is already under the current key.
   */
  rewrapAll(options?: RewrapOptions): Promise<RewrapResult>;
}

export interface RewrapOptions {
  /** Keys rewrapped per write. Default 500. */
  readonly batchSize?: number;
  /** After each batch: keys rewrapped so far, of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface RewrapResult {
  /** Keys this call rewrapped. */
  readonly rewrapped: number;
  /** Keys that were under another master key when the call started. */
  readonly total: number;
}
