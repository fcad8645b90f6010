import * as path from 'node:path';
import type { ForgettingPolicy } from '@engram/domain';
import type { DependencyName } from '@engram/ports';
import type { EngramConfig } from './engram-config';
import { portBindingsFrom } from './port-bindings';

/**
 * The typed options of the services, one slice per consumer, each mapped from the validated
 * configuration by one function here. A slice is a token and an interface of the same name, like a
 * port: `@Inject(IngestLimits) limits: IngestLimits`.
 */

/** Where the HTTP server listens and how large a body it reads. */
export const HttpOptions = Symbol('HttpOptions');
export interface HttpOptions {
  readonly port: number;
  /** HOST, else 127.0.0.1 when no API keys are configured (an open server stays local), else 0.0.0.0. */
  readonly host: string;
  readonly bodyLimitBytes: number;
}

export function httpOptionsFrom(config: EngramConfig): HttpOptions {
  return { port: config.PORT, host: config.listenHost(), bodyLimitBytes: config.ENGRAM_BODY_LIMIT_BYTES };
}

/** Who may call: tenant API keys, the admin key and the metrics key (empty: not set). */
export const AuthOptions = Symbol('AuthOptions');
export interface AuthOptions {
  /** API key → tenant; empty: no auth, tenant `default`. */
  readonly apiKeys: ReadonlyMap<string, string>;
  readonly adminKey: string;
  readonly metricsKey: string;
}

export function authOptionsFrom(config: EngramConfig): AuthOptions {
  return { apiKeys: config.apiKeys(), adminKey: config.ENGRAM_ADMIN_KEY, metricsKey: config.ENGRAM_METRICS_KEY };
}

/** What one POST /v1/turns may carry. */
export const IngestLimits = Symbol('IngestLimits');
export interface IngestLimits {
  readonly maxTurnsPerRequest: number;
  /** Per turn, in code points. */
  readonly maxTextLength: number;
  /** How far after the server's clock a turn's occurredAt may be. */
  readonly maxFutureMs: number;
}

export function ingestLimitsFrom(config: EngramConfig): IngestLimits {
  return {
    maxTurnsPerRequest: config.ENGRAM_MAX_TURNS_PER_REQUEST,
    maxTextLength: config.ENGRAM_MAX_TEXT_LENGTH,
    maxFutureMs: config.ENGRAM_MAX_FUTURE_MS,
  };
}

/** When ingest answers 429: events pending on the read path (0: off), turns per second per tenant (0: unlimited). */
export const BackpressureOptions = Symbol('BackpressureOptions');
export interface BackpressureOptions {
  readonly maxPending: number;
  readonly tenantRateLimit: number;
}

export function backpressureOptionsFrom(config: EngramConfig): BackpressureOptions {
  return { maxPending: config.ENGRAM_MAX_PENDING, tenantRateLimit: config.ENGRAM_TENANT_RATE_LIMIT };
}

/** How long a request that waits for the read side (`after`, `wait`) may wait before answering anyway. */
export const ConsistencyOptions = Symbol('ConsistencyOptions');
export interface ConsistencyOptions {
  readonly afterTimeoutMs: number;
}

export function consistencyOptionsFrom(config: EngramConfig): ConsistencyOptions {
  return { afterTimeoutMs: config.ENGRAM_AFTER_TIMEOUT_MS };
}

/** The forgetting policy (the domain's defaults unless configured) and how often the sweep runs (0: on demand only). */
export const ForgettingOptions = Symbol('ForgettingOptions');
export interface ForgettingOptions {
  readonly policy: ForgettingPolicy;
  readonly intervalMs: number;
}

export function forgettingOptionsFrom(config: EngramConfig): ForgettingOptions {
  return {
    policy: {
      ephemeralTtlDays: config.ENGRAM_EPHEMERAL_TTL_DAYS,
      archiveAfterDays: config.ENGRAM_ARCHIVE_AFTER_DAYS,
      archiveConfidence: config.ENGRAM_ARCHIVE_CONFIDENCE,
      episodeRetentionDays: config.ENGRAM_EPISODE_RETENTION_DAYS,
    },
    intervalMs: config.ENGRAM_FORGETTING_INTERVAL_MS,
  };
}

/** The configured forgetting policy alone. */
export function forgettingPolicyFrom(config: EngramConfig): ForgettingPolicy {
  return forgettingOptionsFrom(config).policy;
}

/**
 * How stages read the log: the topic prefix, batches, retries before the dead-letter topic, the
 * pause of a stage whose dependency is unavailable (first wait, doubling up to the cap), and how
 * long a cached version pointer is trusted.
 */
export const PipelineOptions = Symbol('PipelineOptions');
export interface PipelineOptions {
  readonly topicPrefix: string;
  readonly batchSize: number;
  readonly batchLingerMs: number;
  readonly stageAttempts: number;
  readonly stageRetryDelayMs: number;
  readonly pause: { readonly firstMs: number; readonly maxMs: number };
  readonly projectionPointerTtlMs: number;
  /** ENGRAM_DLQ_REDRIVE_MS: 0, never. */
  readonly deadLetterRedriveMs: number;
}

export function pipelineOptionsFrom(config: EngramConfig): PipelineOptions {
  return {
    topicPrefix: config.ENGRAM_TOPIC_PREFIX,
    batchSize: config.ENGRAM_BATCH_SIZE,
    batchLingerMs: config.ENGRAM_BATCH_LINGER_MS,
    stageAttempts: config.ENGRAM_STAGE_ATTEMPTS,
    stageRetryDelayMs: config.ENGRAM_STAGE_RETRY_DELAY_MS,
    pause: { firstMs: config.ENGRAM_STAGE_PAUSE_MS, maxMs: config.ENGRAM_STAGE_PAUSE_MAX_MS },
    projectionPointerTtlMs: config.ENGRAM_PROJECTION_POINTER_TTL_MS,
    deadLetterRedriveMs: config.ENGRAM_DLQ_REDRIVE_MS,
  };
}

/**
 * The servers this deployment calls (the embeddings endpoint when ENGRAM_EMBEDDINGS_URL is set, the
 * chat model when extraction or summaries use it, the MongoDB-protocol server, Elasticsearch and
 * Kafka when a port is bound to them), whose state status, readiness and metrics report, and how
 * often one known to be down is asked again by recall.
 */
export const DependencyOptions = Symbol('DependencyOptions');
export interface DependencyOptions {
  readonly watched: readonly DependencyName[];
  readonly recheckMs: number;
  /** The server the event log is on, when it is one (Kafka): what a status read that times out names. */
  readonly logServer?: DependencyName;
  /** ENGRAM_STATUS_TIMEOUT_MS. */
  readonly statusTimeoutMs: number;
}

export function dependencyOptionsFrom(config: EngramConfig): DependencyOptions {
  const llm = config.ENGRAM_EXTRACTOR === 'llm' || config.ENGRAM_SUMMARIZER === 'llm';
  const bindings = portBindingsFrom(config);
  const watched: DependencyName[] = [
    ...(config.ENGRAM_EMBEDDINGS_URL ? ['embedder' as const] : []),
    ...(llm ? ['llm' as const] : []),
    // The stores' servers, where a port is bound to one (the distributed mode).
    ...(bindings.factStore === 'mongodb' ? ['mongodb' as const] : []),
    ...(bindings.search === 'elasticsearch' ? ['elasticsearch' as const] : []),
    ...(bindings.eventLog === 'kafka' ? ['kafka' as const] : []),
  ];
  return {
    watched,
    recheckMs: config.ENGRAM_DEPENDENCY_RECHECK_MS,
    ...(bindings.eventLog === 'kafka' ? { logServer: 'kafka' as const } : {}),
    statusTimeoutMs: config.ENGRAM_STATUS_TIMEOUT_MS,
  };
}

/**
 * The entity alias tables: ENGRAM_ENTITY_ALIASES as written (JSON or a file's path; empty: the
 * built-in table), and how many turns must gloss a pair before it is learned (0: off).
 */
export const EntityAliasOptions = Symbol('EntityAliasOptions');
export interface EntityAliasOptions {
  readonly aliases: string;
  readonly minSeen: number;
}

export function entityAliasOptionsFrom(config: EngramConfig): EntityAliasOptions {
  return { aliases: config.ENGRAM_ENTITY_ALIASES, minSeen: config.ENGRAM_ALIAS_MIN_SEEN };
}

/** pino's level and whether it prints for people. */
export const LoggingOptions = Symbol('LoggingOptions');
export interface LoggingOptions {
  readonly level: EngramConfig['LOG_LEVEL'];
  readonly pretty: boolean;
}

export function loggingOptionsFrom(config: EngramConfig): LoggingOptions {
  return { level: config.LOG_LEVEL, pretty: config.ENGRAM_LOG_PRETTY };
}

/** What the process sets for itself at start: the V8 heap's growth (ENGRAM_HEAP_GROWTH_PERCENT). */
export const ProcessOptions = Symbol('ProcessOptions');
export interface ProcessOptions {
  /** 0: V8's own. */
  readonly heapGrowthPercent: number;
}

export function processOptionsFrom(config: EngramConfig): ProcessOptions {
  return { heapGrowthPercent: config.ENGRAM_HEAP_GROWTH_PERCENT };
}

/** The SQLite database: one file in the data directory (which also holds master.key when no ENGRAM_MASTER_KEY is set). */
export const SqliteOptions = Symbol('SqliteOptions');
export interface SqliteOptions {
  readonly dataDir: string;
  readonly file: string;
  /** ENGRAM_VECTOR_CACHE_MB, in bytes. */
  readonly vectorCacheBytes: number;
}

export function sqliteOptionsFrom(config: EngramConfig): SqliteOptions {
  return {
    dataDir: config.ENGRAM_DATA_DIR,
    file: path.join(config.ENGRAM_DATA_DIR, 'engram.db'),
    vectorCacheBytes: config.ENGRAM_VECTOR_CACHE_MB * 1024 * 1024,
  };
}
