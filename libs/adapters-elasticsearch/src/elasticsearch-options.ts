// What the Elasticsearch search index is given: where the cluster is, the alias and version, shards.
import type { Client, ClientOptions } from '@elastic/elasticsearch';

export interface ElasticsearchSearchIndexOptions {
  /** Node URL, e.g. `http://127.0.0.1:9200`. Ignored when `client` is given. */
  readonly node?: string;
  /** A ready client (shared connection pool, auth, TLS). Not closed by `close()`. */
  readonly client?: Client;
  /** Extra client options when the adapter creates its own client. */
  readonly clientOptions?: Omit<ClientOptions, 'node'>;
  /** Alias that reads and writes go through; the concrete index is `<prefix>-v<version>`. Default `engram-memories`. */
  readonly indexPrefix?: string;
  /** Embedding dimensions of this projection version. */
  readonly dimensions: number;
  /** Projection version. Default 1. */
  readonly version?: number;
  /**
   * Point the alias at this version in `init()` (atomically, away from any other
   * version) and read/write through it. Default true. With false (rebuilding a
   * new version next to the live one) reads and writes go to the versioned
   * index directly until `activate()`.
   */
  readonly activate?: boolean;
  /** Primary shards. Default 1: BM25 statistics are per shard, one shard ranks exactly like SQLite. */
  readonly shards?: number;
  /** Replicas. Default 0. */
  readonly replicas?: number;
  /** Page size for `deleteUser`. Default 1000. */
  readonly deletePageSize?: number;
}
