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
