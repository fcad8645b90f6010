/*
 * The facts projection in MongoDB.
 *
 * Portability: written for what BOTH MongoDB and FerretDB 1.24 (the local and
 * CI test server) support. Each write is one conditional replaceOne upsert
 * (filter `{_id, revision: {$lt: N}}`); a stale one fails with E11000, which
 * means "a newer revision is stored" and is a no-op. A save of several records
 * splits them by user into up to `writeConcurrency` groups written in parallel,
 * each first tried as one ordered bulkWrite (one round trip, the usual case of
 * fresh revisions) and, if any of its writes fails, redone one by one: every
 * write is conditional, so redoing one already applied changes nothing, and
 * FerretDB's bulkWrite error details are not trusted (it stops at the first
 * error and reports wrong indexes and counts). No transactions, TTL or
 * partial indexes. Concurrent writes to one document are not atomic on
 * FerretDB: engram has a single writer per user, and a save collapses
 * duplicates of one memory to its newest revision before writing.
 */
import type { MemoryRecord } from '@engram/contracts';
import type { FactStore, MemoryQuery, UserPage } from '@engram/ports';
import type { AnyBulkWriteOperation, Collection, Db, Filter, WithoutId } from 'mongodb';
import { DEFAULT_WRITE_CONCURRENCY, collectionName, compoundId, forEachLimit, isDuplicateKeyError, toMs } from './mongo-common';

export interface MongoFactStoreOptions {
  /** Collection-name suffix for a projection version, e.g. `_v2` (→ `facts_v2`) while rebuilding. */
  readonly suffix?: string;
  /** Writes in flight per save: bulk writes of disjoint users, or single writes when a bulk write falls back. Default 8. */
  readonly writeConcurrency?: number;
}

/**
 * The stored document: the record's own fields (queryable, not a JSON string),
 * `_id` = `tenant:user:memoryId`, and `_createdMs` (createdAt as epoch ms, the
 * list order, robust to ISO times written with an offset).
 */
type FactDocument = MemoryRecord & { _id: string; _createdMs: number };

/** Oldest first; the memory id breaks ties (as in SQLite). */
const ORDER = { _createdMs: 1, memoryId: 1 } as const;

export class MongoFactStore implements FactStore {
  readonly collection: Collection<FactDocument>;
  private readonly writeConcurrency: number;

  constructor(db: Db, options: MongoFactStoreOptions = {}) {
    // ignoreUndefined: an undefined field is left out, as JSON (the SQLite adapter) does, not stored as null.
    this.collection = db.collection<FactDocument>(collectionName('facts', options.suffix), { ignoreUndefined: true });
    this.writeConcurrency = options.writeConcurrency ?? DEFAULT_WRITE_CONCURRENCY;
  }

  /** Creates the store and its indexes (idempotent; call once at start). */
  static async open(db: Db, options: MongoFactStoreOptions = {}): Promise<MongoFactStore> {
    const store = new MongoFactStore(db, options);
    await store.ensureIndexes();
    return store;
  }

  /** Creates the collection's indexes if missing. Idempotent. */
  async ensureIndexes(): Promise<void> {
    // One createIndex per index: FerretDB 1.24 panics (drops the connection) on a createIndexes
    // naming two or more indexes that already exist, i.e. on every restart.
    // One memory per merge key and user: a second memory claiming it is an error, not a silent overwrite.
    await this.collection.createIndex({ tenantId: 1, userId: 1, mergeKey: 1 }, { name: 'tenant_user_mergeKey', unique: true });
    await this.collection.createIndex({ tenantId: 1, userId: 1, status: 1, pinned: 1 }, { name: 'tenant_user_status_pinned' });
  }

  async save(records: readonly MemoryRecord[]): Promise<void> {
    // The newest revision of each memory (the first one on a tie, as SQLite keeps the first applied).
    const latest = new Map<string, MemoryRecord>();
    for (const record of records) {
      const id = factId(record.tenantId, record.userId, record.memoryId);
      const seen = latest.get(id);
      if (!seen || record.revision > seen.revision) latest.set(id, record);
    }
    // Users are independent: their writes go as parallel bulk writes (a server applies one bulk
    // write's operations one after another), each user's records in one of them, in order.
    const chunks = byUser([...latest], this.writeConcurrency);
    await forEachLimit(chunks, this.writeConcurrency, (chunk) => this.saveChunk(chunk));
  }

  private async saveChunk(writes: readonly [string, MemoryRecord][]): Promise<void> {
    if (writes.length > 1) {
      try {
        await this.collection.bulkWrite(
          writes.map(([id, record]): AnyBulkWriteOperation<FactDocument> => ({
            replaceOne: { filter: newerThanStored(id, record), replacement: toDocument(record), upsert: true },
          })),
          { ordered: true },
        );
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        // A stale record (or a merge-key clash) among them: redo each on its own, see the header.
      }
    }
    for (const [id, record] of writes) await this.saveOne(id, record);
  }

  async get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<MemoryRecord[]> {
    if (memoryIds.length === 0) return [];
    // The user's equality filters narrow the scan: FerretDB 1.24 pushes string equality down to its
    // backend but not `$in`, which alone read and decoded the whole collection (428 ms at 3k facts on
    // FerretDB/PostgreSQL, 23–29 ms with the user filter). MongoDB uses the _id index either way.
    const ids = [...new Set(memoryIds)].map((memoryId) => factId(tenantId, userId, memoryId));
    return this.find({ tenantId, userId, _id: { $in: ids } });
  }

  async findByMergeKeys(tenantId: string, userId: string, mergeKeys: readonly string[]): Promise<MemoryRecord[]> {
    if (mergeKeys.length === 0) return [];
    return this.find({ tenantId, userId, mergeKey: { $in: [...new Set(mergeKeys)] } });
  }

  async list(query: MemoryQuery): Promise<MemoryRecord[]> {
    if (query.statuses && query.statuses.length === 0) return [];
    return this.find({
      tenantId: query.tenantId,
      userId: query.userId,
      ...(query.statuses ? { status: { $in: [...query.statuses] } } : {}),
      ...(query.pinned === undefined ? {} : { pinned: query.pinned }),
    });
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    await this.collection.deleteMany({ tenantId, userId });
  }

  async users(): Promise<{ tenantId: string; userId: string }[]> {
    const seen = new Map<string, { tenantId: string; userId: string }>();
    for await (const doc of this.collection.find({}, { projection: { _id: 0, tenantId: 1, userId: 1 } })) {
      seen.set(`${doc.tenantId}\u0000${doc.userId}`, { tenantId: doc.tenantId, userId: doc.userId });
    }
    const key = (u: { tenantId: string; userId: string }) => `${u.tenantId}\u0000${u.userId}`;
    return [...seen.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  async usersOf(tenantId: string, page: UserPage): Promise<string[]> {
    const groups = await this.collection
      .aggregate<{ _id: string }>([
        { $match: { tenantId, ...(page.after === undefined ? {} : { userId: { $gt: page.after } }) } },
        { $group: { _id: '$userId' } },
        { $sort: { _id: 1 } },
        { $limit: page.limit },
      ])
      .toArray();
    return groups.map((group) => group._id);
  }

  async truncate(): Promise<void> {
    await this.collection.deleteMany({});
  }

  private async saveOne(id: string, record: MemoryRecord): Promise<void> {
    try {
      await this.collection.replaceOne(newerThanStored(id, record), toDocument(record), { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // E11000 on _id means the stored revision is the same or newer: a no-op. E11000 on the
      // merge-key index is a real conflict. FerretDB does not say which index, so look.
      const stored = await this.collection.findOne({ _id: id });
      if (stored && stored.revision >= record.revision) return;
      throw new Error(
        `cannot save memory "${record.memoryId}" (revision ${record.revision}) of ${record.tenantId}/${record.userId}: ` +
          `another memory of that user already has merge key "${record.mergeKey}"`,
        { cause: error },
      );
    }
  }

  private async find(filter: Filter<FactDocument>): Promise<MemoryRecord[]> {
    const docs = await this.collection.find(filter).sort(ORDER).toArray();
    return docs.map(toRecord);
  }
}

/** Up to `parts` groups of writes, all of one user's in the same group, in their order. */
function byUser(writes: readonly [string, MemoryRecord][], parts: number): [string, MemoryRecord][][] {
  const groupOf = new Map<string, number>();
  const groups: [string, MemoryRecord][][] = [];
  const n = Math.max(1, Math.floor(parts) || 1);
  for (const write of writes) {
    const user = `${write[1].tenantId}\u0000${write[1].userId}`;
    let group = groupOf.get(user);
    if (group === undefined) {
      group = groupOf.size % n;
      groupOf.set(user, group);
    }
    (groups[group] ??= []).push(write);
  }
  return groups;
}

function factId(tenantId: string, userId: string, memoryId: string): string {
  return compoundId(tenantId, userId, memoryId);
}

/** Matches the stored memory only if its revision is older; with upsert, inserts it if absent. */
function newerThanStored(id: string, record: MemoryRecord): Filter<FactDocument> {
  return { _id: id, revision: { $lt: record.revision } };
}

function toDocument(record: MemoryRecord): WithoutId<FactDocument> {
  return { ...record, _createdMs: toMs(record.createdAt) };
}

function toRecord(doc: FactDocument): MemoryRecord {
  const { _id, _createdMs, ...record } = doc;
  return record;
}
