/** A user's data key, plaintext, as the key store hands it out; `keyId` names it in ciphertext. */
export interface DataKey {
  readonly keyId: string;
  readonly key: Buffer;
}

/**
 * Per-(tenant, user) data keys for crypto-shredding: every text-bearing event is sealed with its
 * user's key, and forgetting the user destroys the key. Stored wrapped by the master key
 * (SQLite table embedded, MongoDB collection distributed); a KMS adapter implements the same
 * three calls by keeping KMS-encrypted keys and asking the KMS to unwrap them.
 */
export const KeyStore = Symbol('KeyStore');

export interface KeyStore {
  /** The user's key, created on first use. Concurrent callers (several processes too) get the same key. */
  getOrCreate(tenantId: string, userId: string): Promise<DataKey>;
  /** The user's key, or undefined when there is none (never created, or destroyed). */
  get(tenantId: string, userId: string): Promise<DataKey | undefined>;
  /** Destroys the user's key for good; idempotent. A later getOrCreate makes a new key under a new id. */
  destroy(tenantId: string, userId: string): Promise<void>;
}
