import type { MemoryRecord, MemoryStatus } from '@engram/contracts';

/**
 * The facts projection: every memory's current state and its history
 * (MongoDB in distributed mode, SQLite embedded). Writes are conditional on
 * `revision`, so applying the same decision twice, or an older one after a
 * newer one, changes nothing.
 */
export const FactStore = Symbol('FactStore');

export interface MemoryQuery {
  readonly tenantId: string;
  readonly userId: string;
  readonly statuses?: readonly MemoryStatus[];
  readonly pinned?: boolean;
}

/**
 * What recall reads of one user in one request: the memories with these ids, those with these merge
 * keys, and (`pinned`) every active pinned memory; each once, oldest first.
 */
export interface MemorySelection {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryIds?: readonly string[];
  readonly mergeKeys?: readonly string[];
  readonly pinned?: boolean;
}

/** One user of one tenant. */
export interface UserRef {
  readonly tenantId: string;
  readonly userId: string;
}

export interface UserPage {
  /** The last user id of the previous page (exclusive). */
  readonly after?: string;
  readonly limit: number;
}

export interface FactStore {
  /** Writes each record unless the stored one has the same or a newer revision. */
  save(records: readonly MemoryRecord[]): Promise<void>;
  get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<MemoryRecord[]>;
  findByMergeKeys(tenantId: string, userId: string, mergeKeys: readonly string[]): Promise<MemoryRecord[]>;
  /** A user's memories, oldest first. */
  list(query: MemoryQuery): Promise<MemoryRecord[]>;
  /** The union `selection` names, in one read: oldest first, each memory once. */
  select(selection: MemorySelection): Promise<MemoryRecord[]>;
  /**
   * The user's memories that gloss a name (`glossesAName`, libs/domain), any status, oldest first:
   * all a user's learned aliases are learned from. The store tells them apart on write, so this
   * reads those alone, not the user's history. It may return others too, only ones stored before the
   * store told them apart (a MongoDB collection from before): the caller checks each.
   */
  glossing(tenantId: string, userId: string): Promise<MemoryRecord[]>;
  /**
   * Every memory (all statuses) of each of these users, in one read: what a batch of several users'
   * events needs (the resolver's state), at one request per batch rather than one per user. Grouped
   * by user in no particular order of users; each user's memories oldest first, as `list`.
   */
  listUsers(users: readonly UserRef[]): Promise<MemoryRecord[]>;
  deleteUser(tenantId: string, userId: string): Promise<void>;
  /** Every tenant and user holding at least one memory, sorted (comparing versions, reprocessing as of an instant). */
  users(): Promise<{ tenantId: string; userId: string }[]>;
  /** One page of a tenant's users holding at least one memory: ids sorted, those after `after`, at most `limit`. */
  usersOf(tenantId: string, page: UserPage): Promise<string[]>;
  /** Drops every memory of every tenant (rebuild starts here). */
  truncate(): Promise<void>;
}
