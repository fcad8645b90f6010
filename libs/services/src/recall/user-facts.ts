import type { MemoryRecord } from '@engram/contracts';
import { episodeMergeKey, holdsAt, summaryMergeKey } from '@engram/domain';
import type { FactStore, MemoryQuery, SessionTurn } from '@engram/ports';

/** What recall reads of one user's memories: by id, by merge key, and lists. */
export type UserFactReader = Pick<FactStore, 'get' | 'findByMergeKeys' | 'list'>;

/**
 * Memories recall already read (every memory of the user, for a look into the past; or the one
 * read `GatheredFactReads` made), read as the fact store would answer for that user: the same
 * records in the same order, with no further request. Only for that user, and only for what the
 * read covered.
 */
export function userFactsFrom(memories: readonly MemoryRecord[]): UserFactReader {
  const inOrder = (keep: (memory: MemoryRecord) => boolean) => Promise.resolve(memories.filter(keep));
  return {
    get: (_tenantId, _userId, memoryIds) => {
      const ids = new Set(memoryIds);
      return inOrder((memory) => ids.has(memory.memoryId));
    },
    findByMergeKeys: (_tenantId, _userId, mergeKeys) => {
      const keys = new Set(mergeKeys);
      return inOrder((memory) => keys.has(memory.mergeKey));
    },
    list: (query: MemoryQuery) =>
      inOrder(
        (memory) =>
          (query.statuses === undefined || query.statuses.includes(memory.status)) &&
          (query.pinned === undefined || memory.pinned === query.pinned),
      ),
  };
}

/**
 * Recall's reads of one user's memories until the search has named its candidates, sent as one
 * `FactStore.select`: the pinned memories and the session's summary are asked for before the
 * search answers, the candidates after it; `release()` sends the one read of them all. A read
 * asked after that goes to the store as asked (a new session's look at the previous one, a
 * follow-up's second search). Each answer is what the store would have answered.
 */
export class GatheredFactReads implements UserFactReader {
  private readonly memoryIds = new Set<string>();
  private readonly mergeKeys = new Set<string>();
  private pinned = false;
  private released = false;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  private read: Promise<UserFactReader> | null = null;

  constructor(
    private readonly store: FactStore,
    private readonly tenantId: string,
    private readonly userId: string,
  ) {}

  get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<MemoryRecord[]> {
    if (this.released || !this.isOwn(tenantId, userId)) return this.store.get(tenantId, userId, memoryIds);
    for (const id of memoryIds) this.memoryIds.add(id);
    return this.gathered().then((facts) => facts.get(tenantId, userId, memoryIds));
  }

  findByMergeKeys(tenantId: string, userId: string, mergeKeys: readonly string[]): Promise<MemoryRecord[]> {
    if (this.released || !this.isOwn(tenantId, userId)) return this.store.findByMergeKeys(tenantId, userId, mergeKeys);
    for (const key of mergeKeys) this.mergeKeys.add(key);
    return this.gathered().then((facts) => facts.findByMergeKeys(tenantId, userId, mergeKeys));
  }

  /** The active pinned memories are gathered; any other list goes to the store. */
  list(query: MemoryQuery): Promise<MemoryRecord[]> {
    const activePinned = query.pinned === true && query.statuses?.length === 1 && query.statuses[0] === 'active';
    if (this.released || !activePinned || !this.isOwn(query.tenantId, query.userId)) return this.store.list(query);
    this.pinned = true;
    return this.gathered().then((facts) => facts.list(query));
  }

  /** Sends the one read of what was asked so far (nothing when nothing was); later reads go to the store. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.open();
  }

  private gathered(): Promise<UserFactReader> {
    this.read ??= this.gate.then(async () =>
      userFactsFrom(
        await this.store.select({
          tenantId: this.tenantId,
          userId: this.userId,
          memoryIds: [...this.memoryIds],
          mergeKeys: [...this.mergeKeys],
          pinned: this.pinned,
        }),
      ),
    );
    return this.read;
  }

  private isOwn(tenantId: string, userId: string): boolean {
    return tenantId === this.tenantId && userId === this.userId;
  }
}

/** The session's summary, if it is active. */
export async function activeSummary(
  facts: UserFactReader,
  tenantId: string,
  userId: string,
  sessionId: string,
): Promise<MemoryRecord | undefined> {
  const [summary] = await facts.findByMergeKeys(tenantId, userId, [summaryMergeKey(sessionId)]);
  return summary?.status === 'active' ? summary : undefined;
}

/**
 * The previous session's turns that still hold: one whose episode has become history (it expired
 * with the scope it set — "这次先用蓝色的模板" — or what it said was superseded or retracted) is not
 * carried into a new session as if it were the conversation going on.
 */
export async function stillCurrent(
  facts: UserFactReader,
  tenantId: string,
  userId: string,
  sessionId: string,
  turns: SessionTurn[],
  now: Date,
): Promise<SessionTurn[]> {
  if (turns.length === 0) return turns;
  const keyOf = (turn: SessionTurn) => episodeMergeKey(turn.role === 'assistant' ? 'assistant' : 'user', sessionId, turn.turnId);
  const episodes = new Map((await facts.findByMergeKeys(tenantId, userId, turns.map(keyOf))).map((episode) => [episode.mergeKey, episode]));
  return turns.filter((turn) => {
    const episode = episodes.get(keyOf(turn));
    return !episode || (episode.status === 'active' && holdsAt(episode, now));
  });
}
