import type { MemoryRecord } from '@engram/contracts';
import type { SearchFilter, SearchHit } from '@engram/ports';
import { fuse } from '../ranking/ranking';
import { expandReference } from '../ranking/references';
import { defaultRankingConfig } from '../ranking/ranking.config';
import { matchesRecallFilter, narrowsBeyondKinds, RecallFilter } from './recall-filter';

/**
 * What recall ranks, from either of its two sources — today's search index (below) or the views
 * of the past (`pastCandidates`) — in one shape, so one pipeline (`recallPipeline`) ranks both.
 */
export interface RecallCandidates {
  /** The lexical leg's hits (BM25), best first. */
  readonly textHits: readonly SearchHit[];
  /** The semantic leg's hits (cosine), best first. */
  readonly vectorHits: readonly SearchHit[];
  /**
   * The records the hits name that may be ranked: active, not pinned (pinned memories have a
   * section of their own), within the request's filter. A hit without its record here is not ranked.
   */
  readonly memories: readonly MemoryRecord[];
  /** How often and when recall last returned each memory (the access projection); none for the past. */
  readonly access?: ReadonlyMap<string, { readonly hits: number; readonly lastAccessAt: string }>;
}

export const NO_CANDIDATES: RecallCandidates = { textHits: [], vectorHits: [], memories: [] };

/**
 * What the index is asked to search within, applied inside it before the candidate limit
 * (filtering the top candidates afterwards would lose whatever ranks below them): the filter's
 * kinds as such; sessions and time as the ids of the user's memories that match them, read from
 * the fact store — `active`, the user's active memories, which the caller reads only when
 * `narrowsBeyondKinds(filter)`.
 */
export function indexScope(filter: RecallFilter | null, active: readonly MemoryRecord[] | null): SearchFilter {
  return {
    ...(filter?.kinds ? { kinds: filter.kinds } : {}),
    ...(filter && active && narrowsBeyondKinds(filter)
      ? { memoryIds: active.filter((memory) => !memory.pinned && matchesRecallFilter(memory, filter)).map((memory) => memory.memoryId) }
      : {}),
  };
}

/**
 * The index's candidates: its hits, and of the records they name (read from the fact store) those
 * that may be ranked. The index may lag the store, so status is checked again here (and the filter);
 * pinned facts are already in the facts section.
 */
export function indexCandidates(
  hits: { readonly textHits: readonly SearchHit[]; readonly vectorHits: readonly SearchHit[] },
  memories: readonly MemoryRecord[],
  access: RecallCandidates['access'],
  filter: RecallFilter | null,
): RecallCandidates {
  return {
    textHits: hits.textHits,
    vectorHits: hits.vectorHits,
    memories: memories.filter((memory) => memory.status === 'active' && !memory.pinned && (!filter || matchesRecallFilter(memory, filter))),
    ...(access ? { access } : {}),
  };
}

/** The ids the hits name, each once, in the order fusion meets them: the records to read for `indexCandidates`. */
export function hitIds(hits: { readonly textHits: readonly SearchHit[]; readonly vectorHits: readonly SearchHit[] }): string[] {
  return [...fuse(hits.textHits, hits.vectorHits, defaultRankingConfig.rrfK).keys()];
}

/**
 * What the lexical leg searches for: the question (with the names of its entities, `expandQuery`),
 * plus, when it points back at something said before, the words its referents are found by
 * (`expandReference`): "就按上次说的办吧" names nothing a plan says. Ranking reads the question
 * without them (a reference counts once in its coverage, ranking.ts); the semantic leg embeds it
 * without them too.
 */
export function searchedText(question: string): string {
  return expandReference(question);
}
