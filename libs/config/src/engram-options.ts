import {
  ElasticsearchOptions,
  elasticsearchOptionsFrom,
  EmbedderOptions,
  embedderOptionsFrom,
  KafkaOptions,
  kafkaOptionsFrom,
  MongoOptions,
  mongoOptionsFrom,
} from './backend-options';
import type { EngramConfig } from './engram-config';
import { PortBindings, portBindingsFrom } from './port-bindings';
import { RecallOptions, recallOptionsFrom } from './recall-options';
import {
  AuthOptions,
  authOptionsFrom,
  BackpressureOptions,
  backpressureOptionsFrom,
  ConsistencyOptions,
  consistencyOptionsFrom,
  DependencyOptions,
  dependencyOptionsFrom,
  EntityAliasOptions,
  entityAliasOptionsFrom,
  ForgettingOptions,
  forgettingOptionsFrom,
  HttpOptions,
  httpOptionsFrom,
  IngestLimits,
  ingestLimitsFrom,
  LoggingOptions,
  loggingOptionsFrom,
  PipelineOptions,
  pipelineOptionsFrom,
  ProcessOptions,
  processOptionsFrom,
  SqliteOptions,
  sqliteOptionsFrom,
} from './service-options';
import {
  ExtractionOptions,
  extractionOptionsFrom,
  MasterKeyOptions,
  masterKeyOptionsFrom,
  ReplayOptions,
  replayOptionsFrom,
  ResolverOptions,
  resolverOptionsFrom,
} from './stage-options';
import { WebhookOptions, webhookOptionsFrom } from './webhook-options';

/**
 * The configuration mapped once into the options each consumer injects. `EngramCoreModule` provides
 * each slice under its token (`engramOptionProviders`); a consumer asks for the one it needs.
 */
export interface EngramOptions {
  readonly bindings: PortBindings;
  readonly http: HttpOptions;
  readonly auth: AuthOptions;
  readonly ingest: IngestLimits;
  readonly backpressure: BackpressureOptions;
  readonly consistency: ConsistencyOptions;
  readonly recall: RecallOptions;
  readonly entityAliases: EntityAliasOptions;
  readonly forgetting: ForgettingOptions;
  readonly pipeline: PipelineOptions;
  readonly extraction: ExtractionOptions;
  readonly resolver: ResolverOptions;
  readonly replay: ReplayOptions;
  readonly masterKey: MasterKeyOptions;
  readonly logging: LoggingOptions;
  readonly process: ProcessOptions;
  readonly sqlite: SqliteOptions;
  readonly kafka: KafkaOptions;
  readonly mongo: MongoOptions;
  readonly elasticsearch: ElasticsearchOptions;
  readonly embedder: EmbedderOptions;
  readonly webhooks: WebhookOptions;
  readonly dependencies: DependencyOptions;
}

export function engramOptions(config: EngramConfig): EngramOptions {
  return {
    bindings: portBindingsFrom(config),
    http: httpOptionsFrom(config),
    auth: authOptionsFrom(config),
    ingest: ingestLimitsFrom(config),
    backpressure: backpressureOptionsFrom(config),
    consistency: consistencyOptionsFrom(config),
    recall: recallOptionsFrom(config),
    entityAliases: entityAliasOptionsFrom(config),
    forgetting: forgettingOptionsFrom(config),
    pipeline: pipelineOptionsFrom(config),
    extraction: extractionOptionsFrom(config),
    resolver: resolverOptionsFrom(config),
    replay: replayOptionsFrom(config),
    masterKey: masterKeyOptionsFrom(config),
    logging: loggingOptionsFrom(config),
    process: processOptionsFrom(config),
    sqlite: sqliteOptionsFrom(config),
    kafka: kafkaOptionsFrom(config),
    mongo: mongoOptionsFrom(config),
    elasticsearch: elasticsearchOptionsFrom(config),
    embedder: embedderOptionsFrom(config),
    webhooks: webhookOptionsFrom(config),
    dependencies: dependencyOptionsFrom(config),
  };
}

/** The token each slice is provided under. */
const TOKENS: Readonly<Record<keyof EngramOptions, symbol>> = {
  bindings: PortBindings,
  http: HttpOptions,
  auth: AuthOptions,
  ingest: IngestLimits,
  backpressure: BackpressureOptions,
  consistency: ConsistencyOptions,
  recall: RecallOptions,
  entityAliases: EntityAliasOptions,
  forgetting: ForgettingOptions,
  pipeline: PipelineOptions,
  extraction: ExtractionOptions,
  resolver: ResolverOptions,
  replay: ReplayOptions,
  masterKey: MasterKeyOptions,
  logging: LoggingOptions,
  process: ProcessOptions,
  sqlite: SqliteOptions,
  kafka: KafkaOptions,
  mongo: MongoOptions,
  elasticsearch: ElasticsearchOptions,
  embedder: EmbedderOptions,
  webhooks: WebhookOptions,
  dependencies: DependencyOptions,
};

/** Every slice as a provider (`{ provide, useValue }`, the shape Nest takes), frozen so no consumer changes another's. */
export function engramOptionProviders(options: EngramOptions): { provide: symbol; useValue: unknown }[] {
  return (Object.keys(TOKENS) as (keyof EngramOptions)[]).map((key) => ({ provide: TOKENS[key], useValue: Object.freeze(options[key]) }));
}

/** The tokens, for a module's `exports`. */
export const ENGRAM_OPTION_TOKENS: readonly symbol[] = Object.values(TOKENS);
