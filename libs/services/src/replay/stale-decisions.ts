import { EngramEvent, MemoryDecision, UserForgotten } from '@engram/contracts';
import { FactStore } from '@engram/ports';
import { isDecision } from '../pipeline/facts.projection';

/**
 * Leaves out decisions a live resolver made against the old version around the
 * switch (a batch in flight, a cached pointer) that contradict the new one: a
 * memory the new version does not hold under a merge key it holds under
 * another id. The new version's own memory wins; applying the old one would
 * break the one-memory-per-merge-key rule. Deterministic in log order, so a
 * replay leaves out the same decisions.
 */
export async function withoutStaleDecisions(store: FactStore, events: readonly EngramEvent[]): Promise<(MemoryDecision | UserForgotten)[]> {
  const kept: (MemoryDecision | UserForgotten)[] = [];
  let run: MemoryDecision[] = [];
  const flush = async () => {
    const byUser = new Map<string, MemoryDecision[]>();
    for (const d of run) byUser.set(`${d.tenantId}\u0000${d.userId}`, [...(byUser.get(`${d.tenantId}\u0000${d.userId}`) ?? []), d]);
    const stale = new Set<MemoryDecision>();
    for (const decisions of byUser.values()) {
      const { tenantId, userId } = decisions[0];
      const held = new Map(
        (
          await store.findByMergeKeys(
            tenantId,
            userId,
            decisions.map((d) => d.payload.memory.mergeKey),
          )
        ).map((m) => [m.mergeKey, m.memoryId]),
      );
      for (const d of decisions) {
        const { mergeKey, memoryId } = d.payload.memory;
        const holder = held.get(mergeKey);
        if (holder !== undefined && holder !== memoryId) stale.add(d);
        else held.set(mergeKey, memoryId); // in log order: the first holder within the batch wins too
      }
    }
    kept.push(...run.filter((d) => !stale.has(d)));
    run = [];
  };
  for (const event of events) {
    if (event.type === 'UserForgotten') {
      await flush();
      kept.push(event);
    } else if (isDecision(event.type)) {
      run.push(event as MemoryDecision);
    }
  }
  await flush();
  return kept;
}
