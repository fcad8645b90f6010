import type { EngramConfig } from './engram-config';

/**
 * The typed options of the distributed backends, one slice per binding (the SQLite one is in
 * service-options.ts, beside the data directory), and of the embedder. Addresses are required by
 * loadConfig only when a port is bound to the backend; unbound, a slice is still built and nothing reads it.
 */

export const KafkaOptions = Symbol('KafkaOptions');
export interface KafkaOptions {
  readonly brokers: readonly string[];
  /** KAFKA_BROKERS as written, for error messages. */
  readonly brokersText: string;
  readonly clientId: string;
  /** Of the topics created at start (existing topics keep theirs). */
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly retentionMs?: number;
  /** KAFKA_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs: number;
}

export function kafkaOptionsFrom(config: EngramConfig): KafkaOptions {
  return {
    brokers: (config.KAFKA_BROKERS ?? '')
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
    brokersText: config.KAFKA_BROKERS ?? '',
    clientId: config.KAFKA_CLIENT_ID,
    partitions: config.KAFKA_PARTITIONS,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    retentionMs: config.KAFKA_RETENTION_MS,
    requestTimeoutMs: config.KAFKA_REQUEST_TIMEOUT_MS,
  };
}

export const MongoOptions = Symbol('MongoOptions');
export interface MongoOptions {
  /** May carry credentials: error messages name MONGODB_URI, never its value. */
  readonly uri: string;
  readonly database: string;
  /** Reported to the server as the client's name (KAFKA_CLIENT_ID, one name per deployment). */
  readonly appName: string;
  /** MONGODB_SERVER_SELECTION_TIMEOUT_MS: also the connect timeout. */
  readonly serverSelectionTimeoutMs: number;
  /** MONGODB_SOCKET_TIMEOUT_MS. */
  readonly socketTimeoutMs: number;
}

export function mongoOptionsFrom(config: EngramConfig): MongoOptions {
  return {
    uri: config.MONGODB_URI ?? '',
    database: config.MONGODB_DATABASE,
    appName: config.KAFKA_CLIENT_ID,
    serverSelectionTimeoutMs: config.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
    socketTimeoutMs: config.MONGODB_SOCKET_TIMEOUT_MS,
  };
}

export const ElasticsearchOptions = Symbol('ElasticsearchOptions');
export interface ElasticsearchOptions {
  readonly url: string;
  /** The search alias; concrete indices are `<prefix>-v<version>`. */
  readonly indexPrefix: string;
  /** ELASTICSEARCH_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs: number;
}

export function elasticsearchOptionsFrom(config: EngramConfig): ElasticsearchOptions {
  return {
    url: config.ELASTICSEARCH_URL ?? '',
    indexPrefix: config.ELASTICSEARCH_INDEX_PREFIX,
    requestTimeoutMs: config.ELASTICSEARCH_REQUEST_TIMEOUT_MS,
  };
}

/**
 * The embedder: the hashing one, or an OpenAI-compatible endpoint; and the bilingual lexicon beside
 * it (what the index and the hashing embedder know of meaning). The variables as stated, because
 * `createEmbedder` (libs/embedding) and `createLexicon` (libs/lexicon) read them by name and name
 * them in their errors.
 */
export const EmbedderOptions = Symbol('EmbedderOptions');
export type EmbedderOptions = Pick<
  EngramConfig,
  | 'ENGRAM_EMBEDDING_DIMENSIONS'
  | 'ENGRAM_LEXICON'
  | 'ENGRAM_EMBEDDINGS_URL'
  | 'ENGRAM_EMBEDDINGS_MODEL'
  | 'ENGRAM_EMBEDDINGS_DIMENSIONS'
  | 'ENGRAM_EMBEDDINGS_BATCH_SIZE'
  | 'ENGRAM_EMBEDDINGS_TIMEOUT_MS'
  | 'ENGRAM_EMBEDDINGS_RETRIES'
  | 'ENGRAM_EMBEDDINGS_API_KEY'
  | 'ENGRAM_EMBEDDINGS_INPUT_TYPE'
  | 'ENGRAM_EMBEDDINGS_KEEP_ALIVE'
>;

export function embedderOptionsFrom(config: EngramConfig): EmbedderOptions {
  return {
    ENGRAM_EMBEDDING_DIMENSIONS: config.ENGRAM_EMBEDDING_DIMENSIONS,
    ENGRAM_LEXICON: config.ENGRAM_LEXICON,
    ENGRAM_EMBEDDINGS_URL: config.ENGRAM_EMBEDDINGS_URL,
    ENGRAM_EMBEDDINGS_MODEL: config.ENGRAM_EMBEDDINGS_MODEL,
    ENGRAM_EMBEDDINGS_DIMENSIONS: config.ENGRAM_EMBEDDINGS_DIMENSIONS,
    ENGRAM_EMBEDDINGS_BATCH_SIZE: config.ENGRAM_EMBEDDINGS_BATCH_SIZE,
    ENGRAM_EMBEDDINGS_TIMEOUT_MS: config.ENGRAM_EMBEDDINGS_TIMEOUT_MS,
    ENGRAM_EMBEDDINGS_RETRIES: config.ENGRAM_EMBEDDINGS_RETRIES,
    ENGRAM_EMBEDDINGS_API_KEY: config.ENGRAM_EMBEDDINGS_API_KEY,
    ENGRAM_EMBEDDINGS_INPUT_TYPE: config.ENGRAM_EMBEDDINGS_INPUT_TYPE,
    ENGRAM_EMBEDDINGS_KEEP_ALIVE: config.ENGRAM_EMBEDDINGS_KEEP_ALIVE,
  };
}
