// The search projection in Elasticsearch 8 (the SearchIndex port): versioned indexes behind an alias,
// bulk upserts, text (BM25) and vector (kNN) search. Mappings, documents and query pieces are beside it.
import { Client } from '@elastic/elasticsearch';
import type { SearchDocument, SearchHit, SearchIndex, TextQuery, VectorQuery } from '@engram/ports';
import { documentId, type IndexedDocument, isIndexableTerm, isIndexableVector, routingOf } from './elasticsearch-documents';
import { errorType, statusOf } from './elasticsearch-errors';
import { indexMappings, indexSettings } from './elasticsearch-mappings';
import type { ElasticsearchSearchIndexOptions } from './elasticsearch-options';
import { compare, matchesNothing, MAX_NUM_CANDIDATES, searchFilter } from './elasticsearch-queries';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The search projection in Elasticsearch 8.
 *
 * - Terms come from the domain tokenizer, so they are indexed as an array into
 *   a `text` field whose analyzer is the `keyword` tokenizer with no filters:
 *   every domain term is exactly one token (a CJK bigram, `c++`, `node.js`,
 *   `Café` stay whole, case and all), and BM25 (k1 1.2, b 0.75, as FTS5) scores
 *   them with tf, idf and length norms. A query is one `term` clause per unique
 *   term, so no term is ever parsed as query syntax.
 * - Versioned upserts: `version_type: external`, `version` = revision; a 409
 *   (stored revision not older) is a no-op.
 * - Only `status: active` documents are returned, and every query is filtered
 *   by tenant and user before scoring (bool filter; knn pre-filter).
 * - A user's documents are routed to one shard (`routingOf`), and every read and
 *   write of them names it: with several shards, a query is answered by its
 *   user's shard alone instead of fanning out to all. (Indexes of one shard, all
 *   engram created before routing, hold every routing value in that shard, so
 *   they serve routed requests as they are.)
 * - Vector scores: Elasticsearch's cosine score is (1 + cos) / 2, converted back
 *   to the raw cosine. `hnsw` (float) rather than the quantised default, so the
 *   scores are exact.
 * - `index.gc_deletes: 0`: a deleted user starts afresh, so the tombstone of a
 *   deleted document must not keep rejecting revision 1 (see `upsert`).
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  readonly client: Client;
  readonly alias: string;
  readonly indexName: string;
  private readonly ownsClient: boolean;
  private readonly dimensions: number;
  private readonly shards: number;
  private readonly replicas: number;
  private readonly deletePageSize: number;
  private active: boolean;

  constructor(private readonly options: ElasticsearchSearchIndexOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1 || options.dimensions > 4096) {
      throw new Error(`ElasticsearchSearchIndex: dimensions must be an integer in 1..4096, got ${options.dimensions}`);
    }
    const version = options.version ?? 1;
    if (!Number.isInteger(version) || version < 1) throw new Error(`ElasticsearchSearchIndex: bad version ${version}`);
    const prefix = options.indexPrefix ?? 'engram-memories';
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(prefix)) throw new Error(`ElasticsearchSearchIndex: bad index prefix "${prefix}"`);
    if (!options.client && !options.node) throw new Error('ElasticsearchSearchIndex: node or client is required');
    this.alias = prefix;
    this.indexName = `${prefix}-v${version}`;
    this.dimensions = options.dimensions;
    this.shards = options.shards ?? 1;
    this.replicas = options.replicas ?? 0;
    this.deletePageSize = options.deletePageSize ?? 1000;
    this.active = options.activate ?? true;
    this.ownsClient = !options.client;
    this.client = options.client ?? new Client({ ...options.clientOptions, node: options.node! });
  }

  /** Creates the adapter and runs `init()`. */
  static async open(options: ElasticsearchSearchIndexOptions): Promise<ElasticsearchSearchIndex> {
    const index = new ElasticsearchSearchIndex(options);
    await index.init();
    return index;
  }

  /** Where reads and writes go: the alias once this version is active, else the versioned index. */
  private get target(): string {
    return this.active ? this.alias : this.indexName;
  }

  /**
   * Puts the index template of this version, creates `<prefix>-v<version>` if
   * missing and (unless `activate: false`) points the alias at it.
   */
  async init(): Promise<void> {
    await this.client.indices.putIndexTemplate({
      name: this.indexName,
      index_patterns: [this.indexName],
      priority: 500,
      template: { settings: indexSettings(this.shards, this.replicas), mappings: indexMappings(this.dimensions) },
      _meta: { managedBy: 'engram', dimensions: this.dimensions },
    });
    await this.createIndex();
    if (this.active) await this.activate();
  }

  /** Atomically points the alias at this version (and away from every other index). */
  async activate(): Promise<void> {
    const current = await this.aliasedIndices();
    const actions = [
      ...current.filter((name) => name !== this.indexName).map((index) => ({ remove: { index, alias: this.alias } })),
      { add: { index: this.indexName, alias: this.alias, is_write_index: true } },
    ];
    await this.client.indices.updateAliases({ actions });
    this.active = true;
  }

  /**
   * The version the alias points at now (`<prefix>-v<n>`), or undefined when
   * the alias does not exist yet. With several (never made by `activate()`), the highest.
   */
  async activeVersion(): Promise<number | undefined> {
    const versions = (await this.aliasedIndices())
      .map((name) => (name.startsWith(`${this.alias}-v`) ? Number(name.slice(this.alias.length + 2)) : NaN))
      .filter((version) => Number.isInteger(version) && version > 0);
    return versions.length > 0 ? Math.max(...versions) : undefined;
  }

  /** Makes every write so far visible to searches and counts (the contract's `settle`). */
  async refresh(): Promise<void> {
    await this.client.indices.refresh({ index: this.target });
  }

  /**
   * `refresh`: the bulk request itself refreshes the shards it wrote before answering (Elasticsearch's
   * `refresh=true`), so the documents are searchable once it resolves, without a refresh request of its own.
   */
  async upsert(documents: readonly SearchDocument[], options: { readonly refresh?: boolean } = {}): Promise<void> {
    let pending = [...documents];
    // A 409 normally means "stored revision not older": a no-op. But a document
    // deleted moments ago (deleteUser) leaves a tombstone holding its last
    // version until the engine prunes it (gc_deletes 0, but pruning runs on a
    // ~200 ms cached clock). The contract says a deleted user starts afresh, so
    // conflicts on ids that do not exist are retried once the tombstone is gone.
    for (let attempt = 0; pending.length > 0; attempt++) {
      const conflicts = await this.bulkIndex(pending, options.refresh === true);
      if (conflicts.length === 0) return;
      const missing = await this.missing(conflicts);
      if (missing.length === 0) return;
      if (attempt >= 10) {
        throw new Error(`ElasticsearchSearchIndex: ${missing.length} upserts still conflict with deleted documents`);
      }
      await sleep(250);
      await this.refresh();
      pending = missing;
    }
  }

  async searchText(query: TextQuery): Promise<SearchHit[]> {
    const terms = [...new Set(query.terms.filter(isIndexableTerm))];
    const limit = Math.floor(query.limit);
    if (terms.length === 0 || !(limit > 0) || matchesNothing(query)) return [];
    const response = await this.client.search<Pick<IndexedDocument, 'memoryId'>>({
      index: this.target,
      routing: routingOf(query.tenantId, query.userId),
      size: limit,
      _source: ['memoryId'],
      track_total_hits: false,
      query: {
        bool: {
          filter: [...this.ownerFilter(query.tenantId, query.userId, true), ...searchFilter(query)],
          should: terms.map((value) => ({ term: { terms: { value } } })),
          minimum_should_match: 1,
        },
      },
      sort: [{ _score: { order: 'desc' } }, { memoryId: { order: 'asc' } }],
    });
    return response.hits.hits.map((hit) => ({ memoryId: hit._source!.memoryId, score: hit._score ?? 0 }));
  }

  async searchVector(query: VectorQuery): Promise<SearchHit[]> {
    const limit = Math.floor(query.limit);
    // Another length was embedded by another model, a zero vector has no direction: nothing is comparable.
    if (!(limit > 0) || !isIndexableVector(query.vector, this.dimensions) || matchesNothing(query)) return [];
    const k = Math.min(limit, MAX_NUM_CANDIDATES);
    const response = await this.client.search<Pick<IndexedDocument, 'memoryId'>>({
      index: this.target,
      routing: routingOf(query.tenantId, query.userId),
      size: k,
      _source: ['memoryId'],
      track_total_hits: false,
      knn: {
        field: 'vector',
        query_vector: [...query.vector],
        k,
        num_candidates: Math.min(MAX_NUM_CANDIDATES, Math.max(100, 2 * k)),
        // A kNN pre-filter: the k nearest among the filtered documents, not a filter of the k nearest.
        filter: [...this.ownerFilter(query.tenantId, query.userId, true), ...searchFilter(query)],
      },
    });
    const hits = response.hits.hits.map((hit) => ({
      memoryId: hit._source!.memoryId,
      // Elasticsearch scores cosine as (1 + cos) / 2.
      score: 2 * (hit._score ?? 0) - 1,
    }));
    return hits.sort((a, b) => b.score - a.score || compare(a.memoryId, b.memoryId));
  }

  async revisions(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const unique = [...new Set(memoryIds)];
    if (unique.length === 0) return result;
    const response = await this.client.mget({
      index: this.target,
      routing: routingOf(tenantId, userId),
      ids: unique.map((memoryId) => documentId(tenantId, userId, memoryId)),
      _source: false,
    });
    response.docs.forEach((doc, i) => {
      if ('found' in doc && doc.found && doc._version !== undefined) result.set(unique[i], doc._version);
    });
    return result;
  }

  /** Every stored document of the user, whatever its status. */
  async countUser(tenantId: string, userId: string): Promise<number> {
    const response = await this.client.count({
      index: this.target,
      routing: routingOf(tenantId, userId),
      query: { bool: { filter: this.ownerFilter(tenantId, userId, false) } },
    });
    return response.count;
  }

  /**
   * No `_delete_by_query` (not in every distribution, and not atomic anyway):
   * page through the user's ids by `memoryId` and bulk-delete them.
   */
  async deleteUser(tenantId: string, userId: string): Promise<void> {
    await this.refresh(); // so documents written a moment ago are found and deleted too
    const routing = routingOf(tenantId, userId);
    let after: string | undefined;
    for (;;) {
      const response = await this.client.search({
        index: this.target,
        routing,
        size: this.deletePageSize,
        _source: false,
        track_total_hits: false,
        query: { bool: { filter: this.ownerFilter(tenantId, userId, false) } },
        sort: [{ memoryId: { order: 'asc' } }],
        ...(after === undefined ? {} : { search_after: [after] }),
      });
      const hits = response.hits.hits;
      if (hits.length === 0) break;
      const result = await this.client.bulk({
        operations: hits.map((hit) => ({ delete: { _index: hit._index, _id: hit._id!, routing } })),
      });
      if (result.errors) {
        const failures = result.items
          .map((item) => item.delete)
          .filter((op) => op?.error && op.status !== 404)
          .map((op) => `${op!._id}: ${op!.error!.type} ${op!.error!.reason ?? ''}`);
        if (failures.length > 0) throw new Error(`ElasticsearchSearchIndex.deleteUser failed: ${failures.slice(0, 5).join('; ')}`);
      }
      if (hits.length < this.deletePageSize) break;
      after = String(hits[hits.length - 1].sort![0]);
    }
    await this.refresh();
  }

  /** Deletes this version's index (by its exact name) and creates it afresh. */
  async truncate(): Promise<void> {
    await this.deleteIndex();
    await this.createIndex();
    if (this.active) await this.activate();
  }

  /** Deletes this version's index and template (exact names), e.g. in test teardown. */
  async drop(): Promise<void> {
    await this.deleteIndex();
    try {
      await this.client.indices.deleteIndexTemplate({ name: this.indexName });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  /** Indexes the documents; returns those rejected with a version conflict. */
  private async bulkIndex(documents: readonly SearchDocument[], refresh: boolean): Promise<SearchDocument[]> {
    if (documents.length === 0) return [];
    const operations: unknown[] = [];
    for (const doc of documents) {
      operations.push(
        {
          index: {
            _id: documentId(doc.tenantId, doc.userId, doc.memoryId),
            routing: routingOf(doc.tenantId, doc.userId),
            version: doc.revision,
            version_type: 'external',
          },
        },
        this.source(doc),
      );
    }
    const result = await this.client.bulk({ index: this.target, operations, ...(refresh ? { refresh: true } : {}) });
    if (!result.errors) return [];
    const conflicts: SearchDocument[] = [];
    const failures: string[] = [];
    result.items.forEach((item, i) => {
      const op = item.index;
      if (!op?.error) return;
      if (op.status === 409) conflicts.push(documents[i]);
      else failures.push(`${documents[i].memoryId}: ${op.status} ${op.error.type} ${op.error.reason ?? ''}`);
    });
    if (failures.length > 0) {
      throw new Error(`ElasticsearchSearchIndex.upsert: ${failures.length} documents failed: ${failures.slice(0, 5).join('; ')}`);
    }
    return conflicts;
  }

  /** The documents whose ids are not stored (a conflict with a tombstone, not with a newer revision). */
  private async missing(documents: readonly SearchDocument[]): Promise<SearchDocument[]> {
    const response = await this.client.mget({
      index: this.target,
      docs: documents.map((doc) => ({
        _id: documentId(doc.tenantId, doc.userId, doc.memoryId),
        routing: routingOf(doc.tenantId, doc.userId),
      })),
      _source: false,
    });
    return documents.filter((_, i) => {
      const doc = response.docs[i];
      return 'found' in doc && !doc.found;
    });
  }

  private source(doc: SearchDocument): IndexedDocument {
    return {
      tenantId: doc.tenantId,
      userId: doc.userId,
      memoryId: doc.memoryId,
      revision: doc.revision,
      kind: doc.kind,
      status: doc.status,
      content: doc.content,
      terms: doc.terms.filter(isIndexableTerm),
      entities: [...doc.entities],
      ...(isIndexableVector(doc.vector, this.dimensions) ? { vector: [...doc.vector] } : {}),
      updatedAt: doc.updatedAt,
    };
  }

  private ownerFilter(tenantId: string, userId: string, activeOnly: boolean): Array<Record<string, unknown>> {
    return [{ term: { tenantId } }, { term: { userId } }, ...(activeOnly ? [{ term: { status: 'active' } }] : [])];
  }

  private async createIndex(): Promise<void> {
    try {
      // Settings and mappings are given explicitly too, so the index is right even if the template was changed.
      await this.client.indices.create({
        index: this.indexName,
        settings: indexSettings(this.shards, this.replicas),
        mappings: indexMappings(this.dimensions),
      });
    } catch (error) {
      if (errorType(error) !== 'resource_already_exists_exception') throw error;
    }
  }

  private async deleteIndex(): Promise<void> {
    try {
      await this.client.indices.delete({ index: this.indexName });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  private async aliasedIndices(): Promise<string[]> {
    try {
      return Object.keys(await this.client.indices.getAlias({ name: this.alias }));
    } catch (error) {
      if (statusOf(error) === 404) return [];
      throw error;
    }
  }
}
