// The index settings and mappings of a version: one domain term = one token, BM25 as FTS5, exact cosine vectors.

const TERMS_ANALYZER = 'engram_terms';

export function indexSettings(shards: number, replicas: number) {
  return {
    number_of_shards: shards,
    number_of_replicas: replicas,
    // Deleted documents must not keep their version: a deleted user starts afresh at revision 1.
    gc_deletes: '0s',
    analysis: {
      // One domain term = one token: no splitting, no lowercasing, no stemming.
      analyzer: { [TERMS_ANALYZER]: { type: 'custom' as const, tokenizer: 'keyword', filter: [] as string[] } },
    },
  };
}

export function indexMappings(dimensions: number) {
  return {
    dynamic: 'strict' as const,
    // Every write and get names its user's shard (`routingOf`); one that forgot would be refused, not misplaced.
    _routing: { required: true },
    properties: {
      tenantId: { type: 'keyword' as const },
      userId: { type: 'keyword' as const },
      memoryId: { type: 'keyword' as const },
      revision: { type: 'long' as const },
      kind: { type: 'keyword' as const },
      status: { type: 'keyword' as const },
      content: { type: 'text' as const, analyzer: 'cjk' },
      terms: { type: 'text' as const, analyzer: TERMS_ANALYZER, search_analyzer: TERMS_ANALYZER },
      entities: { type: 'keyword' as const },
      vector: {
        type: 'dense_vector' as const,
        dims: dimensions,
        index: true,
        similarity: 'cosine' as const,
        index_options: { type: 'hnsw' as const },
      },
      updatedAt: { type: 'date' as const },
    },
  };
}
