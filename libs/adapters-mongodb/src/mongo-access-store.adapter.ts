/*
 * Access statistics in MongoDB: hits and last access per memory, each access
 * event counted once.
 *
 * Portability: written for what BOTH MongoDB and FerretDB 1.24 (the local and
 * CI test server) support: insertOne/findOne/updateOne by _id, conditional
 * updateOne upserts, $inc/$max/$addToSet/$setOnInsert/$pull, updateMany and
 * deleteMany. No transactions, so exactly-once is built from single-document
 * writes that are each safe to redo:
 *
 *   1. insert the event (`access_events`, `_id` = event id) as pending; E11000
 *      means it was seen before: done → nothing to count; pending → an earlier
 *      attempt stopped half way, so resume it;
 *   2. per memory, one upsert guarded by `pendingEvents: {$ne: eventId}` that
 *      $inc's hits, $max's the last access and $addToSet's the event id: a
 *      redo finds the id there (no match; the upsert's insert then fails with
 *      E11000 on _id) and counts nothing;
 *   3. mark the event done;
 *   4. $pull the event id from those stats (a replay of a done event pulls
 *      again, clearing what a crash between 3 and 4 left).
 *
 * Step 2 is one bulkWrite for a fresh event (no error expected) and one
 * updateOne per memory otherwise, since FerretDB's multi-op bulkWrite does not
 * report errors faithfully. Concurrent updates of one document are not atomic
 * on FerretDB: engram has one writer per user, and one event lists each memory
 * once here.
 */
import type { AccessStats, AccessStore } from '@engram/ports';
import type { AnyBulkWriteOperation, Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { DEFAULT_WRITE_CONCURRENCY, collectionName, compoundId, forEachLimit, isDuplicateKeyError, toMs } from './mongo-common';

export interface MongoAccessStoreOptions {
  /** Collection-name suffix for a projection version, e.g. `_v2` (→ `access_events_v2`, `access_stats_v2`). */
  readonly suffix?: string;
  /** Single-document writes in flight when an event is applied one memory at a time. Default 8. */
  readonly writeConcurrency?: number;
}

/** A processed (or being processed) access event. Kept until the user is forgotten or the projection truncated. */
interface AccessEventDocument {
  _id: string;
  tenantId: string;
  userId: string;
  /** Distinct memory ids of the event, as first recorded. */
  memoryIds: string[];
  at: string;
  done: boolean;
}

interface AccessStatsDocument {
  /** `tenant:user:memoryId`. */
  _id: string;
  tenantId: string;
  userId: string;
  memoryId: string;
  hits: number;
  /**
   * The latest access as `<ms + 8.64e15, 17 digits>|<accessedAt as given>`: one
   * string whose $max is the latest instant whatever the ISO offset, and which
   * still carries the original text to return.
   */
  lastAccess: string;
  /** Events counted here but not yet marked done (normally empty). */
  pendingEvents: string[];
}

export class MongoAccessStore implements AccessStore {
  readonly events: Collection<AccessEventDocument>;
  readonly stats: Collection<AccessStatsDocument>;
  private readonly writeConcurrency: number;

  constructor(db: Db, options: MongoAccessStoreOptions = {}) {
    this.events = db.collection<AccessEventDocument>(collectionName('access_events', options.suffix));
    this.stats = db.collection<AccessStatsDocument>(collectionName('access_stats', options.suffix));
    this.writeConcurrency = options.writeConcurrency ?? DEFAULT_WRITE_CONCURRENCY;
  }

  /** Creates the store and its indexes (idempotent; call once at start). */
  static async open(db: Db, options: MongoAccessStoreOptions = {}): Promise<MongoAccessStore> {
    const store = new MongoAccessStore(db, options);
    await store.ensureIndexes();
    return store;
  }

  /** Creates the collections' indexes if missing (for deleteUser; reads go by _id). Idempotent. */
  async ensureIndexes(): Promise<void> {
    await this.events.createIndex({ tenantId: 1, userId: 1 }, { name: 'tenant_user' });
    await this.stats.createIndex({ tenantId: 1, userId: 1 }, { name: 'tenant_user' });
  }

  async record(eventId: string, tenantId: string, userId: string, memoryIds: readonly string[], at: string): Promise<void> {
    let event: AccessEventDocument = { _id: eventId, tenantId, userId, memoryIds: [...new Set(memoryIds)], at, done: false };
    let fresh = true;
    try {
      await this.events.insertOne(event);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const stored = await this.events.findOne({ _id: eventId });
      if (!stored) throw error; // deleted meanwhile (user forgotten): let the caller retry
      event = stored;
      fresh = false;
    }
    if (!event.done) {
      await this.count(event, fresh);
      await this.events.updateOne({ _id: eventId }, { $set: { done: true } });
    }
    const ids = event.memoryIds.map((memoryId) => statsId(event.tenantId, event.userId, memoryId));
    if (ids.length > 0) {
      await this.stats.updateMany({ _id: { $in: ids }, pendingEvents: eventId }, { $pull: { pendingEvents: eventId } });
    }
  }

  async get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, AccessStats>> {
    const result = new Map<string, AccessStats>();
    if (memoryIds.length === 0) return result;
    const ids = [...new Set(memoryIds)].map((memoryId) => statsId(tenantId, userId, memoryId));
    // The user's equality filters first: FerretDB pushes those down, not `$in` (see MongoFactStore.get).
    for (const doc of await this.stats.find({ tenantId, userId, _id: { $in: ids } }).toArray()) {
      result.set(doc.memoryId, { memoryId: doc.memoryId, hits: doc.hits, lastAccessAt: accessedAtOf(doc.lastAccess) });
    }
    return result;
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    // Forgetting a user also drops which of their events were seen (as SQLite): a later replay meets UserForgotten again.
    await this.stats.deleteMany({ tenantId, userId });
    await this.events.deleteMany({ tenantId, userId });
  }

  async truncate(): Promise<void> {
    await this.stats.deleteMany({});
    await this.events.deleteMany({});
  }

  /** Step 2 of the header: bumps each memory's stats unless this event already did. */
  private async count(event: AccessEventDocument, fresh: boolean): Promise<void> {
    const lastAccess = lastAccessKey(event.at);
    const bump = (memoryId: string) => ({
      filter: {
        _id: statsId(event.tenantId, event.userId, memoryId),
        pendingEvents: { $ne: event._id },
      } as Filter<AccessStatsDocument>,
      update: {
        $inc: { hits: 1 },
        $max: { lastAccess },
        $addToSet: { pendingEvents: event._id },
        $setOnInsert: { tenantId: event.tenantId, userId: event.userId, memoryId },
      } as UpdateFilter<AccessStatsDocument>,
    });
    if (fresh && event.memoryIds.length > 1) {
      try {
        await this.stats.bulkWrite(
          event.memoryIds.map((memoryId): AnyBulkWriteOperation<AccessStatsDocument> => ({
            // `multi` for FerretDB's sake (mongo-common.ts); the filter names one _id.
            updateMany: { ...bump(memoryId), upsert: true },
          })),
          { ordered: true },
        );
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        // Not expected for a fresh event; redo one by one, each guarded, see the header.
      }
    }
    await forEachLimit(event.memoryIds, this.writeConcurrency, async (memoryId) => {
      const { filter, update } = bump(memoryId);
      try {
        await this.stats.updateOne(filter, update, { upsert: true });
      } catch (error) {
        // The stats exist and already list this event (only _id is unique here): counted before.
        if (!isDuplicateKeyError(error)) throw error;
      }
    });
  }
}

function statsId(tenantId: string, userId: string, memoryId: string): string {
  return compoundId(tenantId, userId, memoryId);
}

/** JavaScript dates span ±8.64e15 ms, so `ms + 8.64e15` is a non-negative integer of at most 17 digits. */
const MS_OFFSET = 8.64e15;

function lastAccessKey(at: string): string {
  return `${String(toMs(at) + MS_OFFSET).padStart(17, '0')}|${at}`;
}

function accessedAtOf(lastAccess: string): string {
  return lastAccess.slice(lastAccess.indexOf('|') + 1);
}
