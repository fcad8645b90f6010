import { type MasterKey, masterKeyOf, newDataKey, rewrapDataKey, unwrapDataKey, wrapDataKey } from '@engram/domain';
import type { DataKey, KeyStore, RewrapOptions, RewrapResult, UserRef } from '@engram/ports';
import type { Collection, Db, Filter } from 'mongodb';
import { compoundId, inPerTenant, isDuplicateKeyError } from './mongo-common';

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

  /**
   * @param master wraps new keys (ENGRAM_MASTER_KEY)
   * @param previous only unwrap keys still wrapped by them, during a rotation (ENGRAM_PREVIOUS_MASTER_KEY)
   */
  constructor(
    db: Db,
    private readonly master: MasterKey,
    private readonly previous: readonly MasterKey[] = [],
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
    return document ? unwrapDataKey(this.master, tenantId, userId, document, this.previous) : undefined;
  }

  async getMany(users: readonly UserRef[]): Promise<(DataKey | undefined)[]> {
    if (users.length === 0) return [];
    const ids = users.map(({ tenantId, userId }) => compoundId(tenantId, userId));
    const filter = inPerTenant(
      '_id',
      users.map(({ tenantId }, i) => ({ tenantId, value: ids[i] })),
    );
    const found = await this.keys.find(filter as Filter<DataKeyDocument>).toArray();
    const byId = new Map(found.map((document) => [document._id, document]));
    return users.map(({ tenantId, userId }, i) => {
      const document = byId.get(ids[i]);
      return document ? unwrapDataKey(this.master, tenantId, userId, document, this.previous) : undefined;
    });
  }

  async destroy(tenantId: string, userId: string): Promise<void> {
    await this.keys.deleteOne({ _id: compoundId(tenantId, userId) });
  }

  async rewrapAll(options: RewrapOptions = {}): Promise<RewrapResult> {
    const batchSize = Math.max(1, options.batchSize ?? 500);
    const current = this.master.fingerprint;
    let total = 0;
    for (const master of (await this.keys.distinct('master')) as string[]) {
      if (master === current) continue;
      masterKeyOf({ master }, this.master, this.previous); // refuses before anything changes
      total += await this.keys.countDocuments({ master });
    }
    let rewrapped = 0;
    let after = '';
    for (;;) {
      // In _id order from where the last batch ended: a key that cannot be rewritten (destroyed
      // meanwhile) is not read again.
      const batch = await this.keys
        .find({ _id: { $gt: after }, master: { $ne: current } })
        .sort({ _id: 1 })
        .limit(batchSize)
        .toArray();
      if (batch.length === 0) break;
      for (const document of batch) {
        const next = rewrapDataKey(this.master, this.previous, document.tenantId, document.userId, document);
        // Only the key that was read, still under the master key it was read under.
        const { modifiedCount } = await this.keys.updateOne(
          { _id: document._id, keyId: document.keyId, master: document.master },
          { $set: { wrapped: next.wrapped, master: next.master } },
        );
        rewrapped += modifiedCount;
      }
      after = batch[batch.length - 1]._id;
      options.onProgress?.(rewrapped, total);
    }
    return { rewrapped, total };
  }
}
