import type { MemoryRecord, MemoryVersion } from '@engram/contracts';
import type { RecallResponse } from '@engram/services/recall/recall.dto';

/** What two builds of the facts projection must agree on for one memory: not when it was processed. */
export interface MemorySnapshot {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly value: string;
  readonly content: string;
  readonly version: number;
  readonly mentionCount: number;
  /** Past values, oldest first. */
  readonly history: readonly string[];
}

/** One user as the read side serves them: every memory (status=all) and one recall answer. */
export interface UserSnapshot {
  readonly memories: readonly MemorySnapshot[];
  /**
   * Ids recall returned (facts and memories), sorted: the set, not the order — recall's own access
   * events between two dumps move the usage component of the ranking, never which projection
   * version answered. Recent turns (sessions projection) in the order recall gives them.
   */
  readonly recall: { readonly memoryIds: readonly string[]; readonly recentTurnIds: readonly string[] };
}

/** Users by id. */
export type ProjectionSnapshot = Readonly<Record<string, UserSnapshot>>;

export type MemoryDocument = Pick<MemoryRecord, 'memoryId' | 'kind' | 'status' | 'value' | 'content' | 'version' | 'mentionCount'> & {
  readonly history: readonly Pick<MemoryVersion, 'value'>[];
};

/** A user's memories (as `GET /v1/users/:id/memories?status=all` returns them) reduced to what must be equal, by id. */
export function snapshotMemories(documents: readonly MemoryDocument[]): MemorySnapshot[] {
  return documents
    .map((m) => ({
      id: m.memoryId,
      kind: m.kind,
      status: m.status,
      value: m.value,
      content: m.content,
      version: m.version,
      mentionCount: m.mentionCount,
      history: m.history.map((h) => h.value),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function snapshotRecall(response: Pick<RecallResponse, 'facts' | 'memories' | 'recent'>): UserSnapshot['recall'] {
  return {
    memoryIds: [...new Set([...response.facts.map((f) => f.id), ...response.memories.map((m) => m.id)])].sort(),
    recentTurnIds: response.recent.map((t) => t.turnId),
  };
}

export interface SnapshotComparison {
  readonly equal: boolean;
  readonly users: number;
  readonly memories: { readonly left: number; readonly right: number };
  readonly differenceCount: number;
  /** The first `limit` differences, in user then memory id order. */
  readonly differences: readonly string[];
}

const show = (value: unknown) => JSON.stringify(value);

/** Compares two dumps of the read side: every user, memory and recall answer; lists the first differences. */
export function compareSnapshots(left: ProjectionSnapshot, right: ProjectionSnapshot, limit = 10): SnapshotComparison {
  const differences: string[] = [];
  let count = 0;
  const differ = (text: string) => {
    count++;
    if (differences.length < limit) differences.push(text);
  };
  const users = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  const total = (snapshot: ProjectionSnapshot) => Object.values(snapshot).reduce((sum, user) => sum + user.memories.length, 0);
  for (const userId of users) {
    const a = left[userId];
    const b = right[userId];
    if (!a || !b) {
      differ(`${userId}: only in the ${a ? 'first' : 'second'} dump`);
      continue;
    }
    const byId = new Map(b.memories.map((m) => [m.id, m]));
    for (const memory of a.memories) {
      const other = byId.get(memory.id);
      byId.delete(memory.id);
      if (!other) {
        differ(`${userId} ${memory.id}: only in the first dump (${memory.kind} ${show(memory.value)})`);
        continue;
      }
      for (const field of ['kind', 'status', 'value', 'content', 'version', 'mentionCount', 'history'] as const) {
        if (show(memory[field]) !== show(other[field]))
          differ(`${userId} ${memory.id}: ${field} ${show(memory[field])} ≠ ${show(other[field])}`);
      }
    }
    for (const memory of byId.values()) differ(`${userId} ${memory.id}: only in the second dump (${memory.kind} ${show(memory.value)})`);
    if (show(a.recall.memoryIds) !== show(b.recall.memoryIds))
      differ(`${userId}: recall memories ${show(a.recall.memoryIds)} ≠ ${show(b.recall.memoryIds)}`);
    if (show(a.recall.recentTurnIds) !== show(b.recall.recentTurnIds))
      differ(`${userId}: recall recent turns ${show(a.recall.recentTurnIds)} ≠ ${show(b.recall.recentTurnIds)}`);
  }
  return {
    equal: count === 0,
    users: users.length,
    memories: { left: total(left), right: total(right) },
    differenceCount: count,
    differences,
  };
}
