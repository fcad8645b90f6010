import { newDataKey } from '@engram/domain';
import type { DataKey, KeyStore, UserRef } from '@engram/ports';
import { Generations } from './generations';

interface Cached {
  /** Undefined: the store had no key for the user when it was read. */
  readonly key: DataKey | undefined;
  readonly readAt: number;
}

export interface DataKeyRingOptions {
  /**
   * How long a key read from the store is used before it is read again. Another process's
   * forget reaches this process's cache through UserForgotten, or at the latest after this.
   */
  readonly ttlMs?: number;
  /** Users whose keys are kept in memory: at most this many, the least recently read dropped first (half at a time). */
  readonly maxUsers?: number;
  readonly now?: () => number;
}

const userOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

/**
 * The key store behind a per-user cache, so sealing and opening events costs a key lookup only
 * once per user and TTL. Destroying through the ring (forget) evicts at once; a UserForgotten
 * passing through this process evicts too.
 */
export class DataKeyRing {
  private readonly cache: Generations<string, Cached>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: KeyStore,
    options: DataKeyRingOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 3_000;
    this.cache = new Generations(options.maxUsers ?? 10_000);
    this.now = options.now ?? Date.now;
  }

  /** The user's current key, created on first use: for events entering engram from outside. */
  async current(tenantId: string, userId: string): Promise<DataKey> {
    const cached = this.currentKnown(tenantId, userId);
    if (cached) return cached;
    const key = await this.store.getOrCreate(tenantId, userId);
    this.remember(tenantId, userId, key);
    return key;
  }

  /**
   * The key `keyId` of the user, while it exists: what opens an event sealed with it, and what
   * seals the events derived from that one. Undefined once it was destroyed.
   */
  async byId(tenantId: string, userId: string, keyId: string): Promise<DataKey | undefined> {
    const known = this.byIdKnown(tenantId, userId, keyId);
    if (known !== undefined) return known ?? undefined;
    const key = await this.store.get(tenantId, userId);
    this.remember(tenantId, userId, key);
    return key?.keyId === keyId ? key : undefined;
  }

  /**
   * What `current` gives, when this ring read it within the TTL: no promise to wait for (sealing
   * and opening ask for a key several times per event). Undefined: ask `current`.
   */
  currentKnown(tenantId: string, userId: string): DataKey | undefined {
    return this.fresh(tenantId, userId)?.key;
  }

  /**
   * What `byId` gives, when this ring can tell without the store: the key, or null when the store
   * said within the TTL that the user has none (destroyed). Undefined: ask `byId` (not read lately,
   * or the user's key is another one, which the store is asked about again).
   */
  byIdKnown(tenantId: string, userId: string, keyId: string): DataKey | null | undefined {
    const cached = this.fresh(tenantId, userId);
    if (!cached) return undefined;
    if (cached.key === undefined) return null;
    return cached.key.keyId === keyId ? cached.key : undefined;
  }

  /**
   * Reads the keys of those of these users it does not hold fresh, all in one request, so that the
   * `*Known` lookups of a batch's events find them: a batch of many users costs one read, not one a
   * user.
   */
  async refresh(users: Iterable<UserRef>): Promise<void> {
    const stale = new Map<string, UserRef>();
    for (const user of users) {
      const key = userOf(user.tenantId, user.userId);
      if (!stale.has(key) && !this.fresh(user.tenantId, user.userId)) stale.set(key, user);
    }
    if (stale.size === 0) return;
    const asked = [...stale.values()];
    const keys = await this.store.getMany(asked);
    asked.forEach(({ tenantId, userId }, i) => this.remember(tenantId, userId, keys[i]));
  }

  /** A key that exists nowhere but here, for a moment: what seals what must never open again. */
  throwaway(): DataKey {
    return newDataKey();
  }

  async destroy(tenantId: string, userId: string): Promise<void> {
    this.evict(tenantId, userId);
    await this.store.destroy(tenantId, userId);
    this.evict(tenantId, userId);
  }

  evict(tenantId: string, userId: string): void {
    this.cache.delete(userOf(tenantId, userId));
  }

  private fresh(tenantId: string, userId: string): Cached | undefined {
    const cached = this.cache.get(userOf(tenantId, userId));
    return cached && this.now() - cached.readAt < this.ttlMs ? cached : undefined;
  }

  private remember(tenantId: string, userId: string, key: DataKey | undefined): void {
    this.cache.set(userOf(tenantId, userId), { key, readAt: this.now() });
  }
}
