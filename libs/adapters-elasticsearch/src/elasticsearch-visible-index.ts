import type { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';
import type { SearchDocument, SearchHit, SearchIndex, TextQuery, VectorQuery } from '@engram/ports';

/**
 * Elasticsearch is near-real-time: an indexed document is searchable only after
 * the next refresh (1 s by default). The indexer commits its batch once
 * `upsert` resolves, and recall's `after` waits for that commit, so the batch
 * must be searchable by then. The batch's one bulk request refreshes what it
 * wrote before it answers (`refresh=true`): one request per batch, not a bulk
 * and a refresh (issue 31: 20 bulk + 21 refresh requests per 1,000 turns).
 */
export class VisibleSearchIndex implements SearchIndex {
  constructor(readonly inner: ElasticsearchSearchIndex) {}

  async upsert(documents: readonly SearchDocument[]): Promise<void> {
    if (documents.length === 0) return;
    await this.inner.upsert(documents, { refresh: true });
  }

  searchText(query: TextQuery): Promise<SearchHit[]> {
    return this.inner.searchText(query);
  }

  searchVector(query: VectorQuery): Promise<SearchHit[]> {
    return this.inner.searchVector(query);
  }

  revisions(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
    return this.inner.revisions(tenantId, userId, memoryIds);
  }

  countUser(tenantId: string, userId: string): Promise<number> {
    return this.inner.countUser(tenantId, userId);
  }

  deleteUser(tenantId: string, userId: string): Promise<void> {
    return this.inner.deleteUser(tenantId, userId); // refreshes itself
  }

  async truncate(): Promise<void> {
    await this.inner.truncate();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
