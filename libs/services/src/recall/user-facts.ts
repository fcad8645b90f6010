import type { MemoryRecord } from '@engram/contracts';
import { episodeMergeKey, holdsAt, summaryMergeKey } from '@engram/domain';
import type { FactStore, MemoryQuery, SessionTurn } from '@engram/ports';

/** What recall reads of one user's memories: by id, by merge key, and lists. */
export type UserFactReader = Pick<FactStore, 'get' | 'findByMergeKeys' | 'list'>;

/**
 * The user's memories recall already read whole (every status, oldest first: a look into the past,
 * or learning the user's aliases where they are not kept), read as the fact store would answer for
 * that user: the same records in the same order, with no further request. Only for that user.
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
