// The distributed event log (the EventLog port on Kafka): appends, positions, groups and topics;
// the consumer loop is kafka-subscription.ts, the options kafka-options.ts.
import type {
  BatchHandler,
  ConsumerSpec,
  EventLog,
  GroupInfo,
  LogMessage,
  LogPosition,
  ResetTarget,
  StoredMessage,
  Subscription,
} from '@engram/ports';
import { serialiseLogValue } from '@engram/ports';
import { type Admin, Kafka, Partitioners, type Producer, type RecordMetadata } from 'kafkajs';
import { defaultOnConsumerFailure, defaultOnHandlerError, LOG_LEVELS, quietLogCreator } from './kafka-logging';
import type { KafkaEventLogOptions, ResolvedOptions } from './kafka-options';
import { fetchWait, KafkaSubscription } from './kafka-subscription';
import { countingRequests } from './kafka-requests';
import { type LazyClient, lazily } from './lazy-client';
import { bySize } from './send-chunks';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** kafkajs marks transient protocol errors (leader moving, coordinator loading) retriable. */
const isRetriable = (error: unknown) => (error as { retriable?: unknown } | null)?.retriable === true;

/**
 * kafkajs's `fetchTopicOffsets` (and `…ByTimestamp`) throw a TypeError ("Cannot destructure property
 * 'partitions' of 'high.pop(...)'") when the broker answers with no partitions — as it does for a
 * moment after it hung or restarted, before its metadata is back. That is the broker not being
 * ready, not a defect of the call: `withAdmin` retries it with fresh metadata and, if it lasts,
 * it is reported as an outage (kafka-outages.ts).
 */
export class KafkaOffsetsUnavailable extends Error {
  override readonly name = 'KafkaOffsetsUnavailable';
  readonly retriable = true;
  constructor(topic: string, cause: unknown) {
    super(`the broker gave no offsets for topic "${topic}" (its metadata is not loaded yet)`, { cause });
  }
}

const positionOf = (entries: readonly { partition: number; offset: string }[]): LogPosition =>
  Object.fromEntries(entries.map(({ partition, offset }) => [partition, Number(offset)]));

/** Kafka's error code for a group the cluster does not know (DeleteGroups). */
const GROUP_ID_NOT_FOUND = 69;

/**
 * The distributed event log: Kafka topics with keyed messages (one user's
 * events stay ordered on one partition) and consumer groups whose offsets are
 * committed only after the handler resolved (at-least-once).
 */
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
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    const sessionTimeoutMs = options.sessionTimeoutMs ?? 30_000;
    const kafka = new Kafka({
      clientId: options.clientId ?? 'engram',
      brokers: [...options.brokers],
      logLevel: LOG_LEVELS[options.logLevel ?? 'warn'],
      logCreator: quietLogCreator,
      // A broker that stops answering fails the request in bounded time (kafkajs retries it on top).
      requestTimeout: requestTimeoutMs,
      enforceRequestTimeout: true,
    });
    this.kafka = options.onRequest ? countingRequests(kafka, options.onRequest) : kafka;
    this.options = {
      partitions: options.partitions ?? 3,
      replicationFactor: options.replicationFactor ?? 1,
      retentionMs: options.retentionMs,
      sessionTimeoutMs,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeMs: options.maxWaitTimeMs ?? 200,
      lingerMs: options.lingerMs ?? 0,
      maxSendBytes: options.maxSendBytes ?? 512 * 1024,
      maxBatchSize: options.maxBatchSize ?? 500,
      retryDelayMs: options.retryDelayMs ?? 250,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      onHandlerError: options.onHandlerError ?? defaultOnHandlerError,
      onConsumerFailure: options.onConsumerFailure ?? defaultOnConsumerFailure,
      stallTimeoutMs: options.stallTimeoutMs ?? Math.max(sessionTimeoutMs, 2 * requestTimeoutMs),
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
    const newConsumer = () =>
      this.kafka.consumer({
        groupId: spec.group,
        sessionTimeout: this.options.sessionTimeoutMs,
        heartbeatInterval: this.options.heartbeatIntervalMs,
        ...fetchWait(this.options),
        allowAutoTopicCreation: false,
      });
    const release = () => this.consumers.delete(subscription);
    const { topic, group } = spec;
    const subscription = new KafkaSubscription(topic, group, maxBatchSize, handler, newConsumer, this.options, release);
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
        return await call(admin).catch((error: unknown) => {
          // `call` is one kafkajs admin call: a TypeError is kafkajs's on an incomplete answer (above).
          throw error instanceof TypeError ? new KafkaOffsetsUnavailable(topic, error) : error;
        });
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
