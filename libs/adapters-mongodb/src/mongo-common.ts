/*
 * Helpers shared by the MongoDB adapters.
 *
 * Portability: everything here is used against both MongoDB (6+) and FerretDB
 * 1.24 (SQLite backend, what `deploy/local/ferretdb.sh` runs for tests). The
 * adapters therefore stay within what both support: single-document writes,
 * unique (compound) indexes, insertMany ordered:false, conditional
 * updateOne/replaceOne upserts, findOneAndUpdate without projection, plain
 * $set/$setOnInsert/$inc/$max/$addToSet/$pull, find with sort/limit. No
 * transactions, change streams, TTL or partial indexes, aggregation-pipeline
 * updates, or multi-op bulkWrite whose errors matter (FerretDB ignores
 * ordered:false there and reports wrong indexes and counts).
 *
 * Bulk writes of updates send each operation as `multi` (updateMany), even when its filter names
 * one `_id` and so matches at most one document: FerretDB 1.24 keeps the read behind each
 * non-multi update that matched open, holding one backend connection, until the whole `update`
 * command ends (its per-operation `defer` in handler/msg_update.go); a multi update reads to the
 * end and closes it. A bulk write of more matched single updates than FerretDB's pool (100
 * connections a database on SQLite), or a few such bulk writes at once, hung the server for good
 * — the cause of the "FerretDB leaks its connections" hangs in deploy/README.md. MongoDB treats
 * the two alike for an `_id` filter.
 */
import { type Document, MongoBulkWriteError, MongoServerError } from 'mongodb';

/** MongoDB's duplicate-key error code (E11000), also used by FerretDB. */
const DUPLICATE_KEY = 11000;

/**
 * One `_id` out of several key parts, joined by `:`. `%` and `:` inside a part
 * are escaped, so `("a:b", "c")` and `("a", "b:c")` never collide; ids without
 * those characters read as plain `tenant:user:id`.
 */
export function compoundId(...parts: readonly string[]): string {
  return parts.map((part) => part.replace(/%/g, '%25').replace(/:/g, '%3A')).join(':');
}

/** A single write (or a bulk write) that failed with E11000. */
export function isDuplicateKeyError(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/**
 * An upsert whose filter is the `_id` alone, tried a second time when it fails with E11000: two
 * writers upserting the same new document at once both try to insert it, and the loser's error
 * only says that the document exists now, which its second try updates. (MongoDB 4.2+ retries such
 * upserts itself; FerretDB does not: six apps started together on a fresh database crashed on
 * `projection_versions`.) Not for filters with more than `_id`, where E11000 means something else.
 */
export async function upsertById<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    return write();
  }
}

/**
 * An unordered insertMany that failed only because some documents already
 * existed (every write error is E11000 and the write concern was met): the
 * other documents were written.
 */
export function isOnlyDuplicateKeyErrors(error: unknown): boolean {
  if (!(error instanceof MongoBulkWriteError) || error.err !== undefined) return false;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  return writeErrors.length > 0 && writeErrors.every((w) => w.code === DUPLICATE_KEY);
}

/**
 * One filter for values of several tenants: `{tenantId, [field]: {$in}}` per tenant, `$or`'d when
 * there are several. The tenant's equality beside `$in` is what FerretDB 1.24 pushes down (it pushes
 * no `$in`); MongoDB serves each branch from its tenant index or `_id`. Null when there are no values.
 */
export function inPerTenant(field: string, values: Iterable<{ readonly tenantId: string; readonly value: string }>): Document | null {
  const byTenant = new Map<string, Set<string>>();
  for (const { tenantId, value } of values) byTenant.set(tenantId, (byTenant.get(tenantId) ?? new Set()).add(value));
  const branches = [...byTenant].map(([tenantId, of]) => ({ tenantId, [field]: { $in: [...of] } }));
  if (branches.length === 0) return null;
  return branches.length === 1 ? branches[0] : { $or: branches };
}

/** `base` plus an optional version suffix (`facts` + `_v2` → `facts_v2`) for a projection rebuilt beside the live one. */
export function collectionName(base: string, suffix: string | undefined): string {
  const s = suffix ?? '';
  if (!/^[A-Za-z0-9_]*$/.test(s)) {
    throw new Error(`invalid MongoDB collection suffix "${s}": use letters, digits and underscores only`);
  }
  return `${base}${s}`;
}

/** Milliseconds since the epoch of an ISO time; 0 when unparseable (as the SQLite adapters do). */
export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * Runs `work` over `items` with at most `limit` calls in flight; stops starting
 * new ones after the first failure and rethrows it once the running ones end.
 */
export async function forEachLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.error;
}

/** Default number of single-document writes a call keeps in flight. */
export const DEFAULT_WRITE_CONCURRENCY = 8;

/** Default number of records one bulk write carries, when a call has more (a rebuild's batch): live batches fit in one. */
export const DEFAULT_BULK_WRITE_SIZE = 500;
