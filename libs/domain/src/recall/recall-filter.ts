import type { MemoryKind, MemoryRecord } from '@engram/contracts';

/**
 * What the application narrows recall to (`POST /v1/recall` `kinds`, `sessions`, `from`/`to`).
 * Every filter given must hold; absent filters hold for everything.
 */
export interface RecallFilter {
  readonly kinds?: readonly MemoryKind[];
  /** The turn ids of the sessions asked for: a memory matches when one of its source turns is among them. */
  readonly turnIds?: ReadonlySet<string>;
  /** Said at or after this instant (world time). */
  readonly from?: Date;
  /** Said before this instant (world time). */
  readonly to?: Date;
}

/**
 * When a memory was said: when its current value was first said (`validFrom`) and when it was last
 * said (`lastSeenAt`, a reinforcement); a memory is in a window when either is (mentions in
 * between are not recorded).
 */
export function matchesRecallFilter(memory: MemoryRecord, filter: RecallFilter): boolean {
  if (filter.kinds && !filter.kinds.includes(memory.kind)) return false;
  if (filter.turnIds && !memory.sourceTurnIds.some((turn) => filter.turnIds!.has(turn))) return false;
  if (filter.from || filter.to) {
    const inWindow = (at: string) => {
      const t = Date.parse(at);
      return (!filter.from || t >= filter.from.getTime()) && (!filter.to || t < filter.to.getTime());
    };
    if (!inWindow(memory.validFrom) && !inWindow(memory.lastSeenAt)) return false;
  }
  return true;
}

/**
 * Whether a filter narrows by more than kind (the search index filters kinds itself; the rest needs
 * the fact store). Any other field counts, so a new one is applied in the index without a change here.
 */
export function narrowsBeyondKinds(filter: RecallFilter): boolean {
  return Object.entries(filter).some(([field, value]) => field !== 'kinds' && value !== undefined);
}
