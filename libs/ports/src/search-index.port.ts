import type { MemoryKind, MemoryStatus } from '@engram/contracts';

/**
 * The search projection: BM25 over pre-tokenised terms plus nearest
 * neighbours over embeddings (Elasticsearch distributed, SQLite FTS5 +
 * vectors embedded). Every query is filtered by tenant and user before
 * anything is scored.
 */
export const SearchIndex = Symbol('SearchIndex');

export interface SearchDocument {
  readonly tenantId: string;
  readonly userId: string;
  readonly memoryId: string;
  /** External version: an upsert with a revision not newer than the stored one is ignored. */
  readonly revision: number;
  readonly kind: MemoryKind;
  readonly status: MemoryStatus;
  readonly content: string;
  /** Terms from the domain tokenizer, so every adapter ranks the same terms. */
  readonly terms: readonly string[];
  readonly entities: readonly string[];
  readonly vector: readonly number[];
  readonly updatedAt: string;
}

export interface SearchHit {
  readonly memoryId: string;
  readonly score: number;
}

/**
 * What the application asked recall for, applied inside the index before scoring and before
 * `limit` (a filter after the top candidates would lose what ranks below them). Absent: no filter;
 * an empty list matches nothing.
 */
export interface SearchFilter {
  /** Only documents of these kinds. */
  readonly kinds?: readonly MemoryKind[];
  /** Only these memories (recall's session and time filters, resolved against the fact store). */
  readonly memoryIds?: readonly string[];
}

export interface TextQuery extends SearchFilter {
  readonly tenantId: string;
  readonly userId: string;
  readonly terms: readonly string[];
  readonly limit: number;
}

export interface VectorQuery extends SearchFilter {
  readonly tenantId: string;
  readonly userId: string;
  readonly vector: readonly number[];
  readonly limit: number;
}

export interface SearchIndex {
  upsert(documents: readonly SearchDocument[]): Promise<void>;
  /** BM25 over active documents (of the filter, when given); higher is better. */
  searchText(query: TextQuery): Promise<SearchHit[]>;
  /** Cosine similarity over active documents (of the filter, when given); higher is better. */
  searchVector(query: VectorQuery): Promise<SearchHit[]>;
  /** The stored revision of each id, for idempotency checks and tests. */
  revisions(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, number>>;
  countUser(tenantId: string, userId: string): Promise<number>;
  deleteUser(tenantId: string, userId: string): Promise<void>;
  truncate(): Promise<void>;
}
