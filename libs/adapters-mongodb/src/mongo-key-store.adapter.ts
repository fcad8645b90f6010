import { type MasterKey, newDataKey, unwrapDataKey, wrapDataKey } from '@engram/domain';
import type { DataKey, KeyStore } from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { compoundId, isDuplicateKeyError } from './mongo-common';

interface DataKeyDocument {
  /** `tenant:user`. */
  _id: string;
  tenantId: string;
  userId: string;
  keyId: string;
  wrapped: string;
  master: string;
}

/**
 * The distributed key store: one document per (tenant, user) in `data_keys`, the data key
 * wrapped by the master key. The first writer wins by `_id`; destroying deletes the document
 * (how soon the server reuses its storage is the server's: docs/security.md).
 */
export class MongoKeyStore implements KeyStore {
  readonly keys: Collection<DataKeyDocument>;

  constructor(
    db: Db,
    private readonly master: MasterKey,
  ) {
    this.keys = db.collection<DataKeyDocument>('data_keys');
  }

  async getOrCreate(tenantId: string, userId: string): Promise<DataKey> {
    const existing = await this.get(tenantId, userId);
    if (existing) return existing;
    const stored = wrapDataKey(this.master, tenantId, userId, newDataKey());
    try {
      await this.keys.insertOne({ _id: compoundId(tenantId, userId), tenantId, userId, ...stored });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // another process created it first: use theirs
    }
    return (await this.get(tenantId, userId))!;
  }

  async get(tenantId: string, userId: string): Promise<DataKey | undefined> {
    const document = await this.keys.findOne({ _id: compoundId(tenantId, userId) });
    return document ? unwrapDataKey(this.master, tenantId, userId, document) : undefined;
  }

  async destroy(tenantId: string, userId: string): Promise<void> {
    await this.keys.deleteOne({ _id: compoundId(tenantId, userId) });
  }
}
