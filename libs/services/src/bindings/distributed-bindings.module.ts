import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { MongoClient, type Db } from 'mongodb';
import { EngramConfig } from '@engram/config';
import { ALL_TOPICS } from '@engram/contracts';
import { ElasticsearchSearchIndex, ElasticsearchSearchIndexVersions } from '@engram/adapters-elasticsearch';
import { KafkaEventLog, type KafkaLogLevel } from '@engram/adapters-kafka';
import {
  MongoAccessStore,
  MongoKeyStore,
  MongoLogVersions,
  MongoRebuildLedger,
  mongoFactStoreVersions,
  mongoSessionStoreVersions,
} from '@engram/adapters-mongodb';
import { createEmbedder } from '@engram/embedding';
import {
  AccessStore,
  Embedder,
  EventLog,
  FactStore,
  FactStoreVersions,
  followActiveVersion,
  KeyStore,
  LogVersions,
  ProjectionVersions,
  RebuildLedger,
  SearchIndex,
  SearchIndexVersions,
  SessionStore,
  SessionStoreVersions,
} from '@engram/ports';
import { DataKeyRing, loadMasterKeys, SealingEventLog } from '../crypto';
import { EngramMetrics } from '../observability/metrics';
import { GroupScopedEventLog } from './group-scoped-event-log';
import { STORED_EVENT_LOG } from './stored-event-log';
import { EventLogUnavailable, VersionedTopicsEventLog } from './versioned-topics-event-log';
import { VisibleSearchIndex } from './visible-search-index';
import { VisibleVersions } from './visible-versions';

export const MONGO_CLIENT = Symbol('MongoClient');
export const MONGO_DATABASE = Symbol('MongoDatabase');

/** pino's levels mapped onto kafkajs's (kafkajs logs on its own, to the console). */
function kafkaLogLevel(level: string): KafkaLogLevel {
  switch (level) {
    case 'silent':
      return 'nothing';
    case 'fatal':
    case 'error':
      return 'error';
    case 'debug':
    case 'trace':
      return 'info';
    default:
      return 'warn';
  }
}

/**
 * Retries start-up calls a few times (~6 s): right after topics are created a busy broker may
 * still answer "does not host this topic-partition" while leaders settle, and kafkajs gives up on
 * that quickly. A broker that stays unreachable still fails the start with its error.
 */
async function withRetries<T>(call: () => Promise<T>, retriable: (error: unknown) => boolean = () => true, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts || !retriable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** (attempt - 1)));
    }
  }
}

export function kafkaBrokers(config: EngramConfig): string[] {
  return (config.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}

/**
 * The distributed mode's adapters: Kafka for the log, MongoDB for facts,
 * sessions and access statistics, Elasticsearch for search. Every client is
 * connected (and topics, indexes and the search index created) while the
 * module initialises, so a process that starts is a process that can work;
 * every client is closed on shutdown.
 */
@Global()
@Module({
  providers: [
    {
      provide: STORED_EVENT_LOG,
      inject: [EngramConfig],
      useFactory: (config: EngramConfig): EventLog => {
        const logger = new Logger('KafkaEventLog');
        const kafka = new KafkaEventLog({
          brokers: kafkaBrokers(config),
          clientId: config.KAFKA_CLIENT_ID,
          partitions: config.KAFKA_PARTITIONS,
          replicationFactor: config.KAFKA_REPLICATION_FACTOR,
          retentionMs: config.KAFKA_RETENTION_MS,
          maxBatchSize: config.ENGRAM_BATCH_SIZE,
          lingerMs: config.ENGRAM_BATCH_LINGER_MS,
          logLevel: kafkaLogLevel(config.LOG_LEVEL),
          onHandlerError: (error, failure) =>
            logger.warn({ ...failure, reason: error instanceof Error ? error.message : String(error) }, 'batch failed, retrying'),
        });
        return new GroupScopedEventLog(kafka, config.ENGRAM_TOPIC_PREFIX);
      },
    },
    // Which version of the topics the log is at (`engram encrypt-log` moves it), in MongoDB's `log_versions`.
    { provide: LogVersions, inject: [MONGO_DATABASE], useFactory: (db: Db) => new MongoLogVersions(db) },
    {
      provide: EventLog,
      inject: [STORED_EVENT_LOG, LogVersions, EngramConfig, DataKeyRing, EngramMetrics],
      useFactory: async (
        stored: EventLog,
        versions: LogVersions,
        config: EngramConfig,
        keys: DataKeyRing,
        metrics: EngramMetrics,
      ): Promise<EventLog> => {
        const log = new SealingEventLog(
          new VersionedTopicsEventLog(stored, versions, { maxAgeMs: config.ENGRAM_PROJECTION_POINTER_TTL_MS }),
          keys,
          {
            onUndecryptable: (topic) => metrics.undecryptable.inc({ topic }),
          },
        );
        try {
          // Created here with KAFKA_PARTITIONS and KAFKA_RETENTION_MS; existing topics keep their settings.
          await withRetries(
            () => log.ensureTopics(ALL_TOPICS.map((topic) => `${config.ENGRAM_TOPIC_PREFIX}${topic}`)),
            (error) => !(error instanceof EventLogUnavailable),
          );
        } catch (error) {
          if (error instanceof EventLogUnavailable) {
            // engram encrypt-log is copying the log: start anyway (reads serve, writes answer 503,
            // stages refuse to subscribe), so that the encrypt-log run itself can start and resume.
            new Logger('EventLog').warn(error.message);
            return log;
          }
          await log.close().catch(() => undefined);
          throw new Error(`Kafka at KAFKA_BROKERS=${config.KAFKA_BROKERS}: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
        }
        return log;
      },
    },
    {
      provide: MONGO_CLIENT,
      inject: [EngramConfig],
      useFactory: async (config: EngramConfig): Promise<MongoClient> => {
        try {
          return await MongoClient.connect(config.MONGODB_URI!, { appName: config.KAFKA_CLIENT_ID, serverSelectionTimeoutMS: 15_000 });
        } catch (error) {
          // The URI may carry credentials: name the variable, not its value.
          throw new Error(`MongoDB at MONGODB_URI: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      },
    },
    {
      provide: MONGO_DATABASE,
      inject: [MONGO_CLIENT, EngramConfig],
      useFactory: (client: MongoClient, config: EngramConfig): Db => client.db(config.MONGODB_DATABASE),
    },
    // Versioned projections: `facts`, `facts_v2`, … behind a pointer document, cached by each
    // process for ENGRAM_PROJECTION_POINTER_TTL_MS (online rebuilds keep applying the overlap longer).
    { provide: FactStoreVersions, inject: [MONGO_DATABASE], useFactory: (db: Db) => mongoFactStoreVersions(db) },
    { provide: SessionStoreVersions, inject: [MONGO_DATABASE], useFactory: (db: Db) => mongoSessionStoreVersions(db) },
    { provide: RebuildLedger, inject: [MONGO_DATABASE], useFactory: (db: Db) => new MongoRebuildLedger(db) },
    {
      provide: FactStore,
      inject: [FactStoreVersions, EngramConfig],
      useFactory: async (versions: ProjectionVersions<FactStore>, config: EngramConfig) => {
        await versions.open(await versions.active()); // collections and indexes exist before the process reports healthy
        return followActiveVersion(versions, { maxAgeMs: config.ENGRAM_PROJECTION_POINTER_TTL_MS });
      },
    },
    {
      provide: SessionStore,
      inject: [SessionStoreVersions, EngramConfig],
      useFactory: async (versions: ProjectionVersions<SessionStore>, config: EngramConfig) => {
        await versions.open(await versions.active());
        return followActiveVersion(versions, { maxAgeMs: config.ENGRAM_PROJECTION_POINTER_TTL_MS });
      },
    },
    { provide: AccessStore, inject: [MONGO_DATABASE], useFactory: (db: Db) => MongoAccessStore.open(db) },
    // Data keys in MongoDB's `data_keys`, wrapped by ENGRAM_MASTER_KEY (required in this mode; during a
    // rotation, keys still under ENGRAM_PREVIOUS_MASTER_KEY are read too).
    {
      provide: KeyStore,
      inject: [MONGO_DATABASE, EngramConfig],
      useFactory: (db: Db, config: EngramConfig) => {
        const { current, previous } = loadMasterKeys(config);
        return new MongoKeyStore(db, current, previous);
      },
    },
    { provide: DataKeyRing, inject: [KeyStore], useFactory: (store: KeyStore) => new DataKeyRing(store) },
    // The same embedder as the embedded mode (hashing, or ENGRAM_EMBEDDINGS_URL), so both modes rank alike.
    { provide: Embedder, inject: [EngramConfig], useFactory: (c: EngramConfig) => createEmbedder(c) },
    {
      provide: SearchIndex,
      inject: [EngramConfig, Embedder],
      useFactory: async (config: EngramConfig, embedder: Embedder): Promise<SearchIndex> => {
        const options = { node: config.ELASTICSEARCH_URL, indexPrefix: config.ELASTICSEARCH_INDEX_PREFIX, dimensions: embedder.dimensions };
        // Serve the version the alias points at (an online rebuild may have moved it past 1).
        const probe = new ElasticsearchSearchIndex(options);
        const version = await probe.activeVersion().catch(() => undefined);
        await probe.close().catch(() => undefined);
        const index = new ElasticsearchSearchIndex({ ...options, version: version ?? 1 });
        try {
          await index.init();
        } catch (error) {
          await index.close().catch(() => undefined);
          throw new Error(
            `Elasticsearch at ELASTICSEARCH_URL=${config.ELASTICSEARCH_URL}: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
        return new VisibleSearchIndex(index);
      },
    },
    // Search versions are `<prefix>-v<n>` indexes; the alias is the pointer (live readers use it, so
    // Elasticsearch resolves it on every request). Versions are written with a refresh per batch.
    {
      provide: SearchIndexVersions,
      inject: [SearchIndex, Embedder],
      useFactory: (index: VisibleSearchIndex, embedder: Embedder) =>
        new VisibleVersions(
          new ElasticsearchSearchIndexVersions({ client: index.inner.client, alias: index.inner.alias, dimensions: embedder.dimensions }),
        ),
    },
  ],
  exports: [
    MONGO_CLIENT,
    MONGO_DATABASE,
    EventLog,
    STORED_EVENT_LOG,
    LogVersions,
    KeyStore,
    DataKeyRing,
    FactStore,
    SessionStore,
    SearchIndex,
    AccessStore,
    Embedder,
    FactStoreVersions,
    SessionStoreVersions,
    SearchIndexVersions,
    RebuildLedger,
  ],
})
export class DistributedBindingsModule implements OnApplicationShutdown {
  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(SearchIndex) private readonly searchIndex: VisibleSearchIndex,
    @Inject(MONGO_CLIENT) private readonly mongo: MongoClient,
  ) {}

  /** After Nest stopped the stage handlers (each finished and committed its batch). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.eventLog.close(), this.searchIndex.close(), this.mongo.close()]);
  }
}
