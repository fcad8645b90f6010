import { FactoryProvider, Logger } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { EventLogBackend, KafkaOptions, LoggingOptions, PipelineOptions } from '@engram/config';
import { ALL_TOPICS, deployedTopic } from '@engram/contracts';
import { SqliteEventLog } from '@engram/adapters-sqlite';
import { KafkaEventLog, type KafkaLogLevel, withKafkaOutages } from '@engram/adapters-kafka';
import { EventLog, LogVersions } from '@engram/ports';
import { DataKeyRing, SealingEventLog } from '../crypto';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { EngramMetrics } from '../observability/metrics';
import { SQLITE_DATABASE } from './databases';
import { GroupScopedEventLog } from './group-scoped-event-log';
import { STORED_EVENT_LOG } from '../crypto/stored-event-log';
import { EventLogUnavailable, VersionedTopicsEventLog } from './versioned-topics-event-log';

/**
 * The event log port (ENGRAM_EVENT_LOG): the log as stored (SQLite or Kafka), and the log every
 * service uses — the same decorators over either: the topics' version (`LogVersions`, kept in the
 * fact store's database) and sealing. Kafka's topics are created at start.
 */
export function eventLogProviders(backend: EventLogBackend): FactoryProvider[] {
  switch (backend) {
    case 'sqlite':
      return [sqliteStoredLog, sqliteEventLog];
    case 'kafka':
      return [kafkaStoredLog, kafkaEventLog];
  }
}

const sqliteStoredLog: FactoryProvider<EventLog> = {
  provide: STORED_EVENT_LOG,
  inject: [SQLITE_DATABASE, PipelineOptions],
  useFactory: (db: Database, pipeline: PipelineOptions) => {
    const logger = new Logger('SqliteEventLog');
    return new SqliteEventLog(db, {
      maxBatchSize: pipeline.batchSize,
      lingerMs: pipeline.batchLingerMs,
      ...pauseOf(pipeline),
      onHandlerError: (error, failure) => logger.warn({ ...failure, reason: reasonOf(error) }, 'batch failed, retrying'),
    });
  },
};

/**
 * A batch whose handler threw is delivered again after this backoff, never skipped. The stage
 * transport throws only for an unavailable dependency (poison goes to the dead-letter topic), so
 * this is the pause of a stage waiting for one (ENGRAM_STAGE_PAUSE_MS, ENGRAM_STAGE_PAUSE_MAX_MS).
 */
const pauseOf = (pipeline: PipelineOptions) => ({ retryDelayMs: pipeline.pause.firstMs, maxRetryDelayMs: pipeline.pause.maxMs });

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const kafkaStoredLog: FactoryProvider<EventLog> = {
  provide: STORED_EVENT_LOG,
  inject: [KafkaOptions, PipelineOptions, LoggingOptions, DependencyMonitor, EngramMetrics],
  useFactory: (
    kafka: KafkaOptions,
    pipeline: PipelineOptions,
    logging: LoggingOptions,
    monitor: DependencyMonitor,
    metrics: EngramMetrics,
  ): EventLog => {
    const logger = new Logger('KafkaEventLog');
    const log = new KafkaEventLog({
      brokers: [...kafka.brokers],
      clientId: kafka.clientId,
      partitions: kafka.partitions,
      replicationFactor: kafka.replicationFactor,
      retentionMs: kafka.retentionMs,
      maxBatchSize: pipeline.batchSize,
      lingerMs: pipeline.batchLingerMs,
      logLevel: kafkaLogLevel(logging.level),
      requestTimeoutMs: kafka.requestTimeoutMs,
      ...pauseOf(pipeline),
      onHandlerError: (error, failure) => logger.warn({ ...failure, reason: reasonOf(error) }, 'batch failed, retrying'),
      // A consumer that crashed or stalled: `what` says whether kafkajs restarts it or the subscription replaces it.
      onConsumerFailure: (error, failure) => logger.error({ ...failure, reason: reasonOf(error) }, 'Kafka consumer failed'),
      onRequest: (operation) => metrics.countStoreRequest('kafka', operation),
    });
    // Brokers that are away are an outage (DependencyUnavailableError 'kafka'): stages pause, HTTP answers 503 naming Kafka.
    return new GroupScopedEventLog(withKafkaOutages(log, monitor), pipeline.topicPrefix);
  },
};

/** What the services use over the stored log: versioned topics, under sealing. */
function servedLog(
  stored: EventLog,
  versions: LogVersions,
  pipeline: PipelineOptions,
  keys: DataKeyRing,
  metrics: EngramMetrics,
): EventLog {
  return new SealingEventLog(new VersionedTopicsEventLog(stored, versions, { maxAgeMs: pipeline.projectionPointerTtlMs }), keys, {
    onUndecryptable: (topic) => metrics.undecryptable.inc({ topic }),
  });
}

const SERVED_LOG_NEEDS = [STORED_EVENT_LOG, LogVersions, PipelineOptions, DataKeyRing, EngramMetrics];

const sqliteEventLog: FactoryProvider<EventLog> = { provide: EventLog, inject: SERVED_LOG_NEEDS, useFactory: servedLog };

const kafkaEventLog: FactoryProvider<EventLog> = {
  provide: EventLog,
  inject: [...SERVED_LOG_NEEDS, KafkaOptions],
  useFactory: async (
    stored: EventLog,
    versions: LogVersions,
    pipeline: PipelineOptions,
    keys: DataKeyRing,
    metrics: EngramMetrics,
    kafka: KafkaOptions,
  ): Promise<EventLog> => {
    const log = servedLog(stored, versions, pipeline, keys, metrics);
    try {
      // Created here with KAFKA_PARTITIONS and KAFKA_RETENTION_MS; existing topics keep their settings.
      await withRetries(
        () => log.ensureTopics(ALL_TOPICS.map((topic) => deployedTopic(pipeline.topicPrefix, topic))),
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
      throw new Error(`Kafka at KAFKA_BROKERS=${kafka.brokersText}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    return log;
  },
};

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
