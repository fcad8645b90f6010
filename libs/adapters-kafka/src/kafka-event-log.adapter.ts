import type {
  BatchContext,
  BatchHandler,
  ConsumedMessage,
  ConsumerSpec,
  EventLog,
  GroupInfo,
  LogMessage,
  LogPosition,
  ResetTarget,
  StoredMessage,
  Subscription,
} from '@engram/ports';
import { parseLogValue, serialiseLogValue } from '@engram/ports';
import {
  type Admin,
  type Consumer,
  type EachBatchPayload,
  Kafka,
  type KafkaMessage,
  type LogEntry,
  logLevel as KafkaJsLogLevel,
  Partitioners,
  type Producer,
  type RecordMetadata,
} from 'kafkajs';

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
  /** kafkajs's own logging. Default `warn`. */
  readonly logLevel?: KafkaLogLevel;
}

type ResolvedOptions = Required<Omit<KafkaEventLogOptions, 'retentionMs' | 'brokers' | 'clientId' | 'logLevel'>> &
  Pick<KafkaEventLogOptions, 'retentionMs'>;

const LOG_LEVELS: Record<KafkaLogLevel, KafkaJsLogLevel> = {
  nothing: KafkaJsLogLevel.NOTHING,
  error: KafkaJsLogLevel.ERROR,
  warn: KafkaJsLogLevel.WARN,
  info: KafkaJsLogLevel.INFO,
  debug: KafkaJsLogLevel.DEBUG,
};

/**
 * Protocol errors that kafkajs's connection layer logs as errors although they are routine and
 * handled: every rebalance (kafkajs rejoins) and a partition whose leadership is still settling
 * (retried; an error that persists still reaches the caller), and CreateTopics answering that a
 * topic already exists (several stages ensure the same topics at start; `createTopics` resolves,
 * and any other creation error rejects it).
 */
const ROUTINE_PROTOCOL_ERRORS = /rebalanc|not aware of this member|generation id is not valid|leader|topic creation errors/i;

/** kafkajs's console format, with routine protocol errors demoted to info. */
function quietLogCreator(level: KafkaJsLogLevel) {
  return ({ namespace, level: entryLevel, label, log }: LogEntry): void => {
    let effective = entryLevel;
    const routine = namespace === 'Connection' && ROUTINE_PROTOCOL_ERRORS.test(String(log.error));
    if (routine && entryLevel === KafkaJsLogLevel.ERROR) effective = KafkaJsLogLevel.INFO;
    if (effective > level) return;
    const line = JSON.stringify({
      ...log,
      level: effective === entryLevel ? label : 'INFO',
      message: namespace ? `[${namespace}] ${log.message}` : log.message,
    });
    if (effective === KafkaJsLogLevel.ERROR) console.error(line);
    else if (effective === KafkaJsLogLevel.WARN) console.warn(line);
    else console.info(line);
  };
}

function defaultOnHandlerError(error: unknown, failure: KafkaHandlerFailure): void {
  const reason = error instanceof Error ? error.message : String(error);
  console.warn(
    `[engram] ${failure.topic}[${failure.partition}] / ${failure.group}: ` +
      `batch ${failure.firstOffset}..${failure.lastOffset} failed (attempt ${failure.attempt}), ` +
      `retrying in ${failure.retryInMs} ms: ${reason}`,
  );
}

/** A client connected on first use; `connected()` is the connection if one was ever asked for. */
interface LazyClient<T> {
  (): Promise<T>;
  connected(): Promise<T> | undefined;
}

/** Memoises an async connect; a failed attempt is forgotten so the next call retries. */
function lazily<T>(connect: () => Promise<T>, isClosed: () => boolean): LazyClient<T> {
  let pending: Promise<T> | undefined;
  const get = () => {
    if (isClosed()) return Promise.reject(new Error('KafkaEventLog is closed'));
    pending ??= connect().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
  return Object.assign(get, { connected: () => pending });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** kafkajs marks transient protocol errors (leader moving, coordinator loading) retriable. */
const isRetriable = (error: unknown) => (error as { retriable?: unknown } | null)?.retriable === true;

const positionOf = (entries: readonly { partition: number; offset: string }[]): LogPosition =>
  Object.fromEntries(entries.map(({ partition, offset }) => [partition, Number(offset)]));

/**
 * The distributed event log: Kafka topics with keyed messages (one user's
 * events stay ordered on one partition) and consumer groups whose offsets are
 * committed only after the handler resolved (at-least-once).
 */
/**
 * Consecutive runs of messages whose keys and values add up to at most `maxBytes` (a message larger
 * than that alone is a run of one: the broker then refuses it, and the caller's retry and dead-letter
 * handling takes over).
 */
export function bySize<T extends { key: string; value: string }>(messages: readonly T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
    if (chunk.length > 0 && bytes + size > maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** A fetch under linger waits for this much data (Kafka's `fetch.min.bytes`), or for `lingerMs`. */
const LINGER_MIN_BYTES = 1024 * 1024;

function fetchWait(options: { readonly maxWaitTimeMs: number; readonly lingerMs: number }): { minBytes: number; maxWaitTimeInMs: number } {
  return options.lingerMs > 0
    ? { minBytes: LINGER_MIN_BYTES, maxWaitTimeInMs: options.lingerMs }
    : { minBytes: 1, maxWaitTimeInMs: options.maxWaitTimeMs };
}

/** Kafka's error code for a group the cluster does not know (DeleteGroups). */
const GROUP_ID_NOT_FOUND = 69;

export class KafkaEventLog implements EventLog {
  private readonly kafka: Kafka;
  private readonly options: ResolvedOptions;
  private readonly consumers = new Set<KafkaSubscription>();
  /** Topics seen to exist: positions of other topics are empty, as in the embedded log. */
  private readonly knownTopics = new Set<string>();
  private readonly producer: LazyClient<Producer>;
  private readonly admin: LazyClient<Admin>;
  private closed = false;

  constructor(options: KafkaEventLogOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaEventLog needs at least one broker');
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'engram',
      brokers: [...options.brokers],
      logLevel: LOG_LEVELS[options.logLevel ?? 'warn'],
      logCreator: quietLogCreator,
    });
    this.options = {
      partitions: options.partitions ?? 3,
      replicationFactor: options.replicationFactor ?? 1,
      retentionMs: options.retentionMs,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeMs: options.maxWaitTimeMs ?? 200,
      lingerMs: options.lingerMs ?? 0,
      maxSendBytes: options.maxSendBytes ?? 512 * 1024,
      maxBatchSize: options.maxBatchSize ?? 500,
      retryDelayMs: options.retryDelayMs ?? 250,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      onHandlerError: options.onHandlerError ?? defaultOnHandlerError,
    };
    this.producer = lazily(
      async () => {
        // Idempotent: a retried send never duplicates or reorders within a partition.
        // The explicit partitioner is the 2.x default (murmur2, as Java's) and silences the v2 migration warning.
        const producer = this.kafka.producer({
          idempotent: true,
          maxInFlightRequests: 1,
          createPartitioner: Partitioners.DefaultPartitioner,
        });
        await producer.connect();
        return producer;
      },
      () => this.closed,
    );
    this.admin = lazily(
      async () => {
        const admin = this.kafka.admin();
        await admin.connect();
        return admin;
      },
      () => this.closed,
    );
  }

  async ensureTopics(topics: readonly string[]): Promise<void> {
    if (topics.length === 0) return;
    const admin = await this.admin();
    const configEntries = this.options.retentionMs === undefined ? [] : [{ name: 'retention.ms', value: String(this.options.retentionMs) }];
    // Resolves false (no error) when the topics already exist; existing topics keep their settings.
    await admin.createTopics({
      waitForLeaders: true,
      topics: topics.map((topic) => ({
        topic,
        numPartitions: this.options.partitions,
        replicationFactor: this.options.replicationFactor,
        configEntries,
      })),
    });
    for (const topic of topics) this.knownTopics.add(topic);
  }

  async append(topic: string, messages: readonly LogMessage[]): Promise<LogPosition> {
    if (messages.length === 0) return this.endPosition(topic);
    const producer = await this.producer();
    const written: RecordMetadata[] = [];
    // One send per chunk, in order: a partition's record batch must stay under the broker's
    // message.max.bytes (1 MiB by default), and a resolver batch of decisions carrying their
    // memories' histories easily exceeds it — the send would fail, and be retried, forever.
    for (const chunk of bySize(
      messages.map((message) => ({ key: message.key, value: serialiseLogValue(message.value) })),
      this.options.maxSendBytes,
    )) {
      written.push(...(await producer.send({ topic, acks: -1, messages: chunk })));
    }
    return this.endAfter(topic, written);
  }

  async appendStored(topic: string, messages: readonly StoredMessage[]): Promise<LogPosition> {
    if (messages.length === 0) return this.endPosition(topic);
    const producer = await this.producer();
    const written: RecordMetadata[] = [];
    const records = messages.map((m) => ({ key: m.key, value: m.raw, partition: m.partition, timestamp: String(m.timestamp) }));
    for (const chunk of bySize(records, this.options.maxSendBytes)) {
      written.push(...(await producer.send({ topic, acks: -1, messages: chunk })));
    }
    return this.endAfter(topic, written);
  }

  private async endAfter(topic: string, written: readonly RecordMetadata[]): Promise<LogPosition> {
    // With acks=all the high watermark already covers this append when send resolves; the
    // base offsets are a floor in case the offsets request reached a lagging metadata view.
    const end: Record<number, number> = { ...(await this.endPosition(topic)) };
    for (const record of written) {
      if (record.baseOffset === undefined) continue;
      end[record.partition] = Math.max(end[record.partition] ?? 0, Number(record.baseOffset) + 1);
    }
    return end;
  }

  async listTopics(): Promise<string[]> {
    const admin = await this.admin();
    return (await admin.listTopics()).filter((topic) => !topic.startsWith('__')).sort();
  }

  /** Deletes the topics and waits until the cluster no longer lists them (Kafka deletes asynchronously). */
  async deleteTopics(topics: readonly string[]): Promise<void> {
    const admin = await this.admin();
    const existing = (await admin.listTopics()).filter((topic) => topics.includes(topic));
    for (const topic of topics) this.knownTopics.delete(topic);
    if (existing.length === 0) return;
    await admin.deleteTopics({ topics: existing, timeout: 30_000 });
    const deadline = Date.now() + 30_000;
    while ((await admin.listTopics()).some((topic) => existing.includes(topic))) {
      if (Date.now() > deadline) throw new Error(`Kafka still lists ${existing.join(', ')} 30 s after deleting them`);
      await sleep(100);
    }
  }

  async listGroups(topic: string, groupPrefix = ''): Promise<GroupInfo[]> {
    if (!(await this.exists(topic))) return [];
    const admin = await this.admin();
    const candidates = (await admin.listGroups()).groups
      .filter((g) => g.groupId.startsWith(groupPrefix) && (g.protocolType === 'consumer' || g.protocolType === ''))
      .map((g) => g.groupId)
      .sort();
    const withOffsets: string[] = [];
    for (const groupId of candidates) {
      const [offsets] = await this.withAdmin(topic, (a) => a.fetchOffsets({ groupId, topics: [topic] }));
      if ((offsets?.partitions ?? []).some(({ offset }) => Number(offset) >= 0)) withOffsets.push(groupId);
    }
    if (withOffsets.length === 0) return [];
    const { groups } = await admin.describeGroups(withOffsets);
    const state = new Map(groups.map((g) => [g.groupId, g.state]));
    return withOffsets.map((group) => ({ group, running: !['Empty', 'Dead', undefined].includes(state.get(group)) }));
  }

  /** Deletes the whole Kafka group (its positions on every topic: see the port). */
  async deleteGroup(topic: string, group: string): Promise<void> {
    for (const subscription of this.consumers) {
      if (subscription.topic === topic && subscription.group === group) {
        throw new Error(`cannot delete group "${group}" of topic "${topic}": a consumer is running; stop it first`);
      }
    }
    const admin = await this.admin();
    const {
      groups: [description],
    } = await admin.describeGroups([group]);
    if (!description || description.state === 'Dead') return; // unknown, or already gone
    if (description.state !== 'Empty') {
      throw new Error(
        `cannot delete group "${group}" of topic "${topic}": it has running members (state ${description.state}); stop them first`,
      );
    }
    try {
      await admin.deleteGroups([group]);
    } catch (error) {
      // Gone between the two calls: what was asked for.
      const codes = ((error as { groups?: { errorCode?: number }[] }).groups ?? []).map((g) => g.errorCode);
      if (!(codes.length > 0 && codes.every((code) => code === GROUP_ID_NOT_FOUND))) throw error;
    }
  }

  async subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
    if (this.closed) throw new Error('KafkaEventLog is closed');
    const maxBatchSize = spec.maxBatchSize ?? this.options.maxBatchSize;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new Error(`maxBatchSize must be a positive integer, got ${maxBatchSize}`);
    }
    const consumer = this.kafka.consumer({
      groupId: spec.group,
      sessionTimeout: this.options.sessionTimeoutMs,
      heartbeatInterval: this.options.heartbeatIntervalMs,
      ...fetchWait(this.options),
      allowAutoTopicCreation: false,
    });
    const release = () => this.consumers.delete(subscription);
    const { topic, group } = spec;
    const subscription = new KafkaSubscription(topic, group, maxBatchSize, handler, consumer, this.options, release);
    this.consumers.add(subscription);
    try {
      await subscription.start();
    } catch (error) {
      await subscription.stop().catch(() => undefined);
      throw error;
    }
    return { stop: () => subscription.stop() };
  }

  async endPosition(topic: string): Promise<LogPosition> {
    if (!(await this.exists(topic))) return {};
    const offsets = await this.withAdmin(topic, (admin) => admin.fetchTopicOffsets(topic));
    return positionOf(offsets.map(({ partition, high }) => ({ partition, offset: high })));
  }

  async committedPosition(topic: string, group: string): Promise<LogPosition> {
    if (!(await this.exists(topic))) return {};
    const [offsets] = await this.withAdmin(topic, (admin) => admin.fetchOffsets({ groupId: group, topics: [topic] }));
    const partitions = offsets?.partitions ?? [];
    // -1: nothing committed yet. A new group starts at the earliest retained message
    // (fromBeginning), so that is its position: 0 until retention deletes something.
    let low: Map<number, number> | undefined;
    if (partitions.some(({ offset }) => Number(offset) < 0)) {
      const ends = await this.withAdmin(topic, (admin) => admin.fetchTopicOffsets(topic));
      low = new Map(ends.map((p) => [p.partition, Number(p.low)]));
    }
    return Object.fromEntries(
      partitions.map(({ partition, offset }) => [partition, Number(offset) >= 0 ? Number(offset) : (low?.get(partition) ?? 0)]),
    );
  }

  async resetGroup(topic: string, group: string, target: ResetTarget): Promise<void> {
    for (const subscription of this.consumers) {
      if (subscription.topic === topic && subscription.group === group) {
        throw new Error(`cannot reset group "${group}" of topic "${topic}": a consumer is running; stop it first`);
      }
    }
    // Members in other processes: refused too (a running member would overwrite the reset).
    const {
      groups: [description],
    } = await (await this.admin()).describeGroups([group]);
    if (description && description.state !== 'Empty' && description.state !== 'Dead') {
      throw new Error(
        `cannot reset group "${group}" of topic "${topic}": it has running members ` + `(state ${description.state}); stop them first`,
      );
    }
    let partitions: { partition: number; offset: string }[];
    if (target.to === 'beginning') {
      partitions = (await this.withAdmin(topic, (admin) => admin.fetchTopicOffsets(topic))).map(({ partition, low }) => ({
        partition,
        offset: low,
      }));
    } else if (target.to === 'position') {
      // Only offsets the partition holds: out of range, a consumer would silently start over.
      partitions = (await this.withAdmin(topic, (admin) => admin.fetchTopicOffsets(topic))).map(({ partition, low, high }) => {
        const offset = target.position[partition] ?? Number(low);
        if (!Number.isInteger(offset) || offset < Number(low) || offset > Number(high)) {
          throw new Error(
            `cannot move group "${group}" of topic "${topic}" to offset ${offset} of partition ${partition}: it holds ${low} to ${high}`,
          );
        }
        return { partition, offset: String(offset) };
      });
    } else {
      // Per partition, the first message at or after the timestamp, or the end when there is none.
      partitions = await this.withAdmin(topic, (admin) => admin.fetchTopicOffsetsByTimestamp(topic, target.timestamp));
    }
    await this.commitAsIdleMember(topic, group, partitions);
  }

  /**
   * Commits offsets for a group without running members: joins it with a short-lived member that
   * consumes nothing, commits, leaves. Not admin.setOffsets, which does the same but waits out a
   * 5 s fetch before it returns; not admin.resetOffsets({ earliest }), which stores the -2
   * sentinel where committedPosition should read a real offset.
   */
  private async commitAsIdleMember(
    topic: string,
    group: string,
    partitions: readonly { partition: number; offset: string }[],
  ): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: group,
      sessionTimeout: this.options.sessionTimeoutMs,
      heartbeatInterval: this.options.heartbeatIntervalMs,
      maxWaitTimeInMs: this.options.maxWaitTimeMs,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic] });
      // Resolves once joined. This member resolves nothing, so it commits only what it is told to.
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
      consumer.pause([{ topic }]);
      await consumer.commitOffsets(partitions.map(({ partition, offset }) => ({ topic, partition, offset })));
    } finally {
      await consumer.disconnect();
    }
  }

  /**
   * Runs an admin call, retrying transient errors with fresh metadata. kafkajs's admin retries
   * only an unknown topic; right after a topic is created the broker may still answer "not the
   * leader" for a moment.
   */
  private async withAdmin<T>(topic: string, call: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = await this.admin();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(admin);
      } catch (error) {
        if (attempt >= 6 || !isRetriable(error)) throw error;
        await sleep(50 * 2 ** (attempt - 1));
        await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
      }
    }
  }

  /**
   * kafkajs retries a missing topic's offsets for ~10 s before it fails: look first, once per
   * topic (topics are not deleted under a running service).
   */
  private async exists(topic: string): Promise<boolean> {
    if (this.knownTopics.has(topic)) return true;
    const admin = await this.admin();
    if (!(await admin.listTopics()).includes(topic)) return false;
    this.knownTopics.add(topic);
    return true;
  }

  /** Stops every subscription (each finishes and commits its batch), then disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.consumers].map((subscription) => subscription.stop()));
    await Promise.all(
      [this.producer.connected(), this.admin.connected()].map(async (connecting) => {
        const client = await connecting?.catch(() => undefined);
        await client?.disconnect();
      }),
    );
  }
}

/** Thrown out of the retry wait when the subscription stops: the failed batch stays uncommitted. */
class Abandoned extends Error {}

/** One subscription: one kafkajs consumer in the group, delivering its partitions' batches in chunks. */
class KafkaSubscription {
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly topic: string,
    readonly group: string,
    private readonly maxBatchSize: number,
    private readonly handler: BatchHandler,
    private readonly consumer: Consumer,
    private readonly options: ResolvedOptions,
    private readonly release: () => void,
  ) {}

  /** Resolves once the consumer has joined the group and been assigned its partitions. */
  async start(): Promise<void> {
    await this.consumer.connect();
    // fromBeginning applies only to a group without committed offsets.
    await this.consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    // disconnect() stops the runner, which waits for the eachBatch in flight (it
    // commits its last chunk), leaves the group and closes the connections.
    this.stopped ??= this.consumer.disconnect().finally(this.release);
    return this.stopped;
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const live = () => !this.stopping && payload.isRunning() && !payload.isStale();
    const context: BatchContext = { isRunning: live, heartbeat: () => payload.heartbeat() };
    for (let start = 0; start < batch.messages.length; start += this.maxBatchSize) {
      // Checked before each chunk: after stop() or a seek, nothing more is delivered and
      // nothing is resolved, so the rest is fetched again from the last commit.
      if (!live()) return;
      const chunk = batch.messages.slice(start, start + this.maxBatchSize);
      const delivered = await this.deliver(chunk.map(this.toMessage(batch.partition)), context, live);
      if (!delivered) return;
      const last = chunk[chunk.length - 1].offset;
      // Committed right after the handler resolved: a crash replays at most this chunk. Resolved
      // (the fetch position moves on) only once committed: a failed commit throws out of eachBatch,
      // and kafkajs's retry fetches this chunk again rather than leaving it handled but uncommitted.
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: this.topic, partitions: [{ partition: batch.partition, offset: String(Number(last) + 1) }] }],
      });
      payload.resolveOffset(last);
      if (this.stopping) return;
      await payload.heartbeat();
    }
  }

  /**
   * Runs the handler until it resolves, retrying in place with a doubling delay (heartbeating so
   * the group keeps the partition). False when the subscription stopped or lost the partition
   * meanwhile: the chunk stays uncommitted and is redelivered to whoever consumes next.
   */
  private async deliver(messages: ConsumedMessage[], context: BatchContext, live: () => boolean): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler(messages, context);
        return true;
      } catch (error) {
        const retryInMs = Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** (attempt - 1));
        this.report(error, {
          topic: this.topic,
          group: this.group,
          partition: messages[0].partition,
          firstOffset: messages[0].offset,
          lastOffset: messages[messages.length - 1].offset,
          attempt,
          retryInMs,
        });
        if (!live()) return false;
        try {
          await this.backOff(retryInMs, context);
        } catch (abandoned) {
          if (abandoned instanceof Abandoned) return false;
          throw abandoned; // a rebalance seen by the heartbeat: kafkajs rejoins, the chunk is redelivered
        }
        if (!live()) return false;
      }
    }
  }

  /** Waits `ms`, heartbeating; rejects with Abandoned as soon as stop() is called. */
  private async backOff(ms: number, context: BatchContext): Promise<void> {
    const deadline = Date.now() + ms;
    const slice = Math.max(10, Math.min(this.options.heartbeatIntervalMs, 1_000));
    while (Date.now() < deadline) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakers.delete(wake);
          reject(new Abandoned());
        };
        const timer = setTimeout(
          () => {
            this.wakers.delete(wake);
            resolve();
          },
          Math.min(slice, deadline - Date.now()),
        );
        this.wakers.add(wake);
        if (this.stopping) wake();
      });
      await context.heartbeat(); // kafkajs throttles it to heartbeatInterval
    }
  }

  private toMessage =
    (partition: number) =>
    (message: KafkaMessage): ConsumedMessage => {
      const raw = message.value?.toString('utf8') ?? '';
      return {
        topic: this.topic,
        partition,
        offset: Number(message.offset),
        key: message.key?.toString('utf8') ?? '',
        value: parseLogValue(raw),
        raw,
        timestamp: Number(message.timestamp),
      };
    };

  private report(error: unknown, failure: KafkaHandlerFailure): void {
    try {
      this.options.onHandlerError(error, failure);
    } catch {
      // A failing error reporter must not stop the loop.
    }
  }
}
