// Pieces of the Elasticsearch queries recall sends: filters, the candidate cap, the tie-break order.
import type { SearchFilter } from '@engram/ports';

export const MAX_NUM_CANDIDATES = 10_000;

export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Recall's kinds and memory-id filters as bool filter clauses (terms queries: keyword fields, not scored). */
export function searchFilter(filter: SearchFilter): Array<Record<string, unknown>> {
  return [
    ...(filter.kinds ? [{ terms: { kind: [...filter.kinds] } }] : []),
    ...(filter.memoryIds ? [{ terms: { memoryId: [...filter.memoryIds] } }] : []),
  ];
}

/** An empty list matches nothing (an empty terms query would be an error or match all, depending on the version). */
export function matchesNothing(filter: SearchFilter): boolean {
  return filter.kinds?.length === 0 || filter.memoryIds?.length === 0;
}
