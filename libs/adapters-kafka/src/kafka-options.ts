// The Kafka event log's options, as callers give them and as the adapter resolves them (defaults applied).
export type KafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

export interface KafkaHandlerFailure {
  readonly topic: string;
  readonly group: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** 1 for the first failure of this batch, then 2, 3, … */
  readonly attempt: number;
  readonly retryInMs: number;
}

/** A subscription's consumer that failed for good or stalled, and what the subscription does about it. */
export interface KafkaConsumerFailure {
  readonly topic: string;
  readonly group: string;
  /** e.g. "stalled; replacing it". */
  readonly what: string;
}

export interface KafkaEventLogOptions {
  readonly brokers: readonly string[];
  /** Default `engram`. */
  readonly clientId?: string;
  /** Partitions of the topics `ensureTopics` creates. Default 3. */
  readonly partitions?: number;
  /** Default 1 (a single local broker); 3 in production. */
  readonly replicationFactor?: number;
  /** `retention.ms` of created topics. Default: the broker's. */
  readonly retentionMs?: number;
  /** Consumer session timeout. Default 30 s (kafkajs's). */
  readonly sessionTimeoutMs?: number;
  /** Consumer heartbeat interval; also how soon a running member notices a rebalance. Default 3 s. */
  readonly heartbeatIntervalMs?: number;
  /** How long a fetch waits for data on an idle topic; bounds how long stop() waits. Default 200 ms. */
  readonly maxWaitTimeMs?: number;
  /**
   * An append is sent in chunks of at most this many bytes (keys + values), in order. Keep it
   * below the broker's `message.max.bytes` (1 MiB by default). Default 512 KiB.
   */
  readonly maxSendBytes?: number;
  /**
   * How long a fetch waits for a batch to fill (the broker answers at LINGER_MIN_BYTES or after
   * this long): fewer, larger batches at the cost of that much latency. Default 0: answer as soon as
   * anything is there.
   */
  readonly lingerMs?: number;
  /** Default batch size when a subscription names none. Default 500. */
  readonly maxBatchSize?: number;
  /** Delay before a failed batch is redelivered; doubles per attempt. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** Cap of the doubling retry delay. Default 10 s. */
  readonly maxRetryDelayMs?: number;
  /** Told about every failed batch (it will be retried, never skipped). Default: console.warn. */
  readonly onHandlerError?: (error: unknown, failure: KafkaHandlerFailure) => void;
  /**
   * Told when a subscription's consumer crashed or stalled and is being replaced (kafka-subscription.ts).
   * Default: console.warn.
   */
  readonly onConsumerFailure?: (error: unknown, failure: KafkaConsumerFailure) => void;
  /** How long a request waits for the broker's answer (kafkajs's requestTimeout). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /**
   * A subscription's consumer that shows no sign of life (a request, a fetch, a join, a heartbeat)
   * for this long outside a batch is replaced by a new one in the group. Default: the larger of the
   * session timeout and twice the request timeout.
   */
  readonly stallTimeoutMs?: number;
  /** kafkajs's own logging. Default `warn`. */
  readonly logLevel?: KafkaLogLevel;
  /**
   * Told of every request a producer, consumer or admin client of this log sent to a broker, by its
   * Kafka API name (`Produce`, `Fetch`, `OffsetCommit`, `Heartbeat`, `Metadata`…): what the log costs.
   */
  readonly onRequest?: (operation: string) => void;
}

export type ResolvedOptions = Required<
  Omit<KafkaEventLogOptions, 'retentionMs' | 'brokers' | 'clientId' | 'logLevel' | 'requestTimeoutMs' | 'onRequest'>
> &
  Pick<KafkaEventLogOptions, 'retentionMs'>;
