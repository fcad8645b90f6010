/*
 * The facts projection in MongoDB.
 *
 * Portability: written for what BOTH MongoDB and FerretDB 1.24 (the local and
 * CI test server) support. Each write is one conditional upsert replacing the
 * document's fields (filter `{_id, revision: {$lt: N}}`, sent as `multi`: see
 * mongo-common.ts on FerretDB's update); a stale one fails with E11000, which
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
 *
 * What a batch costs: a live batch's records (a few hundred) are one bulk write, one `update`
 * command; only a save larger than `bulkWriteSize` (a rebuild's) is split, by user, into bulk
 * writes sent in parallel. The resolver reads every user of its batch with one `listUsers`. A
 * batch delivered again costs its failed bulk write, one find of the stored revisions, and a bulk
 * write of what is still new, if anything.
 */
import type { MemoryRecord } from '@engram/contracts';
import { glossesAName } from '@engram/domain';
import type { FactStore, MemoryQuery, MemorySelection, UserPage, UserRef } from '@engram/ports';
import type { AnyBulkWriteOperation, Collection, Db, Filter, UpdateFilter } from 'mongodb';
import {
  DEFAULT_BULK_WRITE_SIZE,
  DEFAULT_WRITE_CONCURRENCY,
  collectionName,
  compoundId,
  forEachLimit,
  inPerTenant,
  isDuplicateKeyError,
  toMs,
} from './mongo-common';

export interface MongoFactStoreOptions {
  /** Collection-name suffix for a projection version, e.g. `_v2` (→ `facts_v2`) while rebuilding. */
  readonly suffix?: string;
  /** Writes in flight per save: bulk writes of disjoint users, or single writes when a bulk write falls back. Default 8. */
  readonly writeConcurrency?: number;
  /** Records per bulk write (a user's records are never split): a save of more is sent as several, in parallel. Default 500. */
  readonly bulkWriteSize?: number;
}

/**
 * The stored document: the record's own fields (queryable, not a JSON string),
 * `_id` = `tenant:user:memoryId`, `_createdMs` (createdAt as epoch ms, the
 * list order, robust to ISO times written with an offset), and `_glosses`: whether the memory
 * glosses a name (`glossesAName`), so a user's learned aliases are read from those documents alone.
 * A document written before `_glosses` was kept lacks it, and is read with them until it is
 * written again or the projection rebuilt.
 */
type FactDocument = MemoryRecord & { _id: string; _createdMs: number; _glosses: boolean };

/** Oldest first; the memory id breaks ties (as in SQLite). */
const ORDER = { _createdMs: 1, memoryId: 1 } as const;

/**
 * Documents per reply of a find: the driver's default first batch is 101 documents, and a user's
 * history, or a batch of users', is often more; each further batch is a `getMore` round trip. The
 * server still caps a reply at 16 MB.
 */
const FIND_BATCH_SIZE = 5_000;

export class MongoFactStore implements FactStore {
  readonly collection: Collection<FactDocument>;
  private readonly writeConcurrency: number;
  private readonly bulkWriteSize: number;

  constructor(db: Db, options: MongoFactStoreOptions = {}) {
    // ignoreUndefined: an undefined field is left out, as JSON (the SQLite adapter) does, not stored as null.
    this.collection = db.collection<FactDocument>(collectionName('facts', options.suffix), { ignoreUndefined: true });
    this.writeConcurrency = options.writeConcurrency ?? DEFAULT_WRITE_CONCURRENCY;
    this.bulkWriteSize = options.bulkWriteSize ?? DEFAULT_BULK_WRITE_SIZE;
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
    await this.collection.createIndex({ tenantId: 1, userId: 1, _glosses: 1 }, { name: 'tenant_user_glosses' });
  }

  async save(records: readonly MemoryRecord[]): Promise<void> {
    // The newest revision of each memory (the first one on a tie, as SQLite keeps the first applied).
    const latest = new Map<string, MemoryRecord>();
    for (const record of records) {
      const id = factId(record.tenantId, record.userId, record.memoryId);
      const seen = latest.get(id);
      if (!seen || record.revision > seen.revision) latest.set(id, record);
    }
    // One bulk write per `bulkWriteSize` records; users are independent, so a larger save's bulk writes
    // go in parallel (a server applies one bulk write's operations one after another), each user's
    // records in one of them, in order.
    const chunks = byUser([...latest], this.bulkWriteSize);
    await forEachLimit(chunks, this.writeConcurrency, (chunk) => this.saveChunk(chunk));
  }

  private async saveChunk(chunk: readonly [string, MemoryRecord][]): Promise<void> {
    let writes = chunk;
    if (writes.length > 1) {
      if (await this.bulkSave(writes)) return;
      // A stale record among them, most often: a batch delivered again (after a crash or a
      // rebalance). What the store holds at that revision or newer is dropped, in one read, and the
      // rest written again as one bulk write, rather than two requests a record.
      const stored = new Map(
        (
          await this.collection
            .find({ _id: { $in: writes.map(([id]) => id) } })
            .batchSize(FIND_BATCH_SIZE)
            .toArray()
        ).map((doc) => [doc._id, doc.revision]),
      );
      writes = writes.filter(([id, record]) => !stored.has(id) || stored.get(id)! < record.revision);
      if (writes.length === 0 || (writes.length > 1 && (await this.bulkSave(writes)))) return;
      // Still refused: a merge-key clash (or a write racing this one): each on its own, see the header.
    }
    for (const [id, record] of writes) await this.saveOne(id, record);
  }

  /** One ordered bulk write of conditional upserts; false when it met E11000 (it stopped there: FerretDB and MongoDB alike). */
  private async bulkSave(writes: readonly [string, MemoryRecord][]): Promise<boolean> {
    try {
      await this.collection.bulkWrite(
        writes.map(([id, record]): AnyBulkWriteOperation<FactDocument> => ({
          updateMany: { filter: newerThanStored(id, record), update: replacing(record), upsert: true },
        })),
        { ordered: true },
      );
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return false;
    }
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

  async select(selection: MemorySelection): Promise<MemoryRecord[]> {
    const { tenantId, userId } = selection;
    const ids = [...new Set(selection.memoryIds ?? [])].map((memoryId) => factId(tenantId, userId, memoryId));
    const keys = [...new Set(selection.mergeKeys ?? [])];
    const branches: Filter<FactDocument>[] = [
      ...(ids.length > 0 ? [{ _id: { $in: ids } }] : []),
      ...(keys.length > 0 ? [{ mergeKey: { $in: keys } }] : []),
      ...(selection.pinned ? [{ pinned: true, status: 'active' as const }] : []),
    ];
    if (branches.length === 0) return [];
    // The user's equality filters outside the $or: FerretDB pushes them down (see `get`).
    return this.find({ tenantId, userId, ...(branches.length === 1 ? branches[0] : { $or: branches }) });
  }

  async glossing(tenantId: string, userId: string): Promise<MemoryRecord[]> {
    // `$ne: false`: a document from before `_glosses` (no field) may gloss too; the caller checks each.
    return this.find({ tenantId, userId, _glosses: { $ne: false } });
  }

  async listUsers(users: readonly UserRef[]): Promise<MemoryRecord[]> {
    const filter = inPerTenant(
      'userId',
      users.map(({ tenantId, userId }) => ({ tenantId, value: userId })),
    );
    if (!filter) return [];
    // One find, `{tenantId, userId: {$in}}` per tenant (the tenant_user indexes serve each). Not sorted
    // by the server: a sort across users would hold them all in its memory; each user's memories are
    // ordered here. On FerretDB 1.24, which pushes no `$in` down, this reads the collection once per
    // batch instead of once per user (see the header of mongo-common.ts).
    const docs = await this.collection
      .find(filter as Filter<FactDocument>)
      .batchSize(FIND_BATCH_SIZE)
      .toArray();
    return docs.sort(byUserThenOrder).map(toRecord);
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
      await this.collection.updateMany(newerThanStored(id, record), replacing(record), { upsert: true });
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
    const docs = await this.collection.find(filter).sort(ORDER).batchSize(FIND_BATCH_SIZE).toArray();
    return docs.map(toRecord);
  }
}

/** By tenant and user, then as ORDER (oldest first, the memory id on a tie). */
function byUserThenOrder(a: FactDocument, b: FactDocument): number {
  return (
    compareText(a.tenantId, b.tenantId) ||
    compareText(a.userId, b.userId) ||
    a._createdMs - b._createdMs ||
    compareText(a.memoryId, b.memoryId)
  );
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Groups of at most `size` writes (a user with more has a group of their own), all of one user's in
 * the same group, in their order.
 */
function byUser(writes: readonly [string, MemoryRecord][], size: number): [string, MemoryRecord][][] {
  const ofUser = new Map<string, [string, MemoryRecord][]>();
  for (const write of writes) {
    const user = `${write[1].tenantId}\u0000${write[1].userId}`;
    const list = ofUser.get(user);
    if (list) list.push(write);
    else ofUser.set(user, [write]);
  }
  const groups: [string, MemoryRecord][][] = [];
  let group: [string, MemoryRecord][] = [];
  for (const userWrites of ofUser.values()) {
    if (group.length > 0 && group.length + userWrites.length > size) {
      groups.push(group);
      group = [];
    }
    group.push(...userWrites);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

function factId(tenantId: string, userId: string, memoryId: string): string {
  return compoundId(tenantId, userId, memoryId);
}

/** Matches the stored memory only if its revision is older; with upsert, inserts it if absent. */
function newerThanStored(id: string, record: MemoryRecord): Filter<FactDocument> {
  return { _id: id, revision: { $lt: record.revision } };
}

/** Every field a stored document can have but `_id`; the type makes a new field of MemoryRecord a compile error here. */
// prettier-ignore
const DOCUMENT_FIELDS = Object.keys({
  tenantId: true, userId: true, memoryId: true, mergeKey: true, kind: true, subject: true, attribute: true, value: true,
  content: true, entities: true, confidence: true, importance: true, ephemeral: true, pinned: true, sensitive: true,
  status: true, version: true, revision: true, mentionCount: true, sourceTurnIds: true, speaker: true, keys: true,
  sources: true, statusReason: true, conflict: true, appliedItemIds: true, validFrom: true, validTo: true,
  expiresAt: true, createdAt: true, updatedAt: true, lastSeenAt: true, history: true, _createdMs: true, _glosses: true,
} satisfies Record<keyof Omit<FactDocument, '_id'>, true>) as (keyof Omit<FactDocument, '_id'>)[];

/**
 * The update that makes the stored document the record (a replacement written as `$set` of its
 * fields and `$unset` of the optional ones it lacks): a replacement cannot be sent as `multi`.
 */
function replacing(record: MemoryRecord): UpdateFilter<FactDocument> {
  const document: Partial<FactDocument> = { ...record, _createdMs: toMs(record.createdAt), _glosses: glossesAName(record) };
  const absent = DOCUMENT_FIELDS.filter((field) => document[field] === undefined);
  for (const field of absent) delete document[field];
  return absent.length === 0 ? { $set: document } : { $set: document, $unset: Object.fromEntries(absent.map((field) => [field, ''])) };
}

function toRecord(doc: FactDocument): MemoryRecord {
  const { _id, _createdMs, _glosses, ...record } = doc;
  return record;
}
