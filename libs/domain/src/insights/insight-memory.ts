import type { MemoryRecord } from '@engram/contracts';

/** What makes a memory an insight, and the order insights read their sources in. */
export const INSIGHT_KIND = 'insight';

export function isInsight(memory: MemoryRecord): boolean {
  return memory.kind === INSIGHT_KIND;
}

/** Oldest first, then by id: the order an insight's sources and statements are read in. */
export function byValidFromThenId(a: MemoryRecord, b: MemoryRecord): number {
  return Date.parse(a.validFrom) - Date.parse(b.validFrom) || compare(a.memoryId, b.memoryId);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
