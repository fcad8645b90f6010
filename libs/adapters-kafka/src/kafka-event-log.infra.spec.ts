import { type ConsumedMessage, lag, type Subscription } from '@engram/ports';
import { eventually, testEventLog, uniqueName, uniqueSuffix } from '@engram/testing';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { KafkaEventLog } from './kafka-event-log.adapter';
import type { KafkaEventLogOptions } from './kafka-options';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
/** Every topic of this run starts with it, so teardown deletes exactly those. */
const prefix = `engram-test-${uniqueSuffix()}.`;

const options: KafkaEventLogOptions = {
  brokers,
  clientId: 'engram-infra-spec',
  partitions: 3,
  // A member notices a rebalance at its next heartbeat: keep joins in tests quick.
  heartbeatIntervalMs: 500,
  sessionTimeoutMs: 10_000,
  maxWaitTimeMs: 100,
  retryDelayMs: 10,
  maxRetryDelayMs: 50,
  onHandlerError: () => undefined,
  logLevel: 'error',
};

const rawKafka = new Kafka({ clientId: 'engram-infra-spec-raw', brokers, logLevel: logLevel.ERROR });
let rawProducer: Producer | undefined;

async function deleteTestTopics(): Promise<void> {
  const admin = rawKafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

describe('KafkaEventLog', () => {
  afterAll(async () => {
    await rawProducer?.disconnect();
    await deleteTestTopics();
  });

  testEventLog(async () => ({ log: new KafkaEventLog(options), topic: (name) => `${prefix}${name}` }), {
    // A group join (and the rejoin a rebalance forces) takes a few hundred ms to seconds.
    timeoutMs: 20_000,
    testTimeoutMs: 60_000,
    // Kafka lets several members share a group: that is how it scales out (tested below).
    rejectsSecondConsumerInGroup: false,
    appendRaw: async (_subject, topic, key, raw) => {
      if (!rawProducer) {
        // The same partitioner as the adapter's, so the key lands on the same partition.
        rawProducer = rawKafka.producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });
        await rawProducer.connect();
      }
      await rawProducer.send({ topic, acks: -1, messages: [{ key, value: raw }] });
    },
    teardown: async ({ log }) => log.close(),
  });

  describe('consumer groups', () => {
    const logs: KafkaEventLog[] = [];
    const open: Subscription[] = [];
    /** A fresh adapter, as a separate process would have. */
    const aLog = () => {
      const log = new KafkaEventLog(options);
      logs.push(log);
      return log;
    };

    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.stop().catch(() => undefined)));
      await Promise.all(logs.splice(0).map((log) => log.close()));
    });

    async function collect(log: KafkaEventLog, topic: string, group: string, maxBatchSize = 50) {
      const messages: ConsumedMessage[] = [];
      const subscription = await log.subscribe({ topic, group, maxBatchSize }, async (batch) => {
        messages.push(...batch);
      });
      open.push(subscription);
      return { messages, subscription };
    }

    const id = (m: ConsumedMessage) => `${m.partition}:${m.offset}`;

    it('two consumers in one group split a 3-partition topic: every message once, none lost', async () => {
      const log = aLog();
      const topic = `${prefix}${uniqueName('split')}`;
      const group = uniqueName('group');
      await log.ensureTopics([topic]);
      expect(Object.keys(await log.endPosition(topic))).toHaveLength(3);

      // subscribe() resolves once the member joined; the second join completes only after the
      // first member rejoined, so the group is stable with both before anything is appended.
      const a = await collect(log, topic, group);
      const b = await collect(aLog(), topic, group);

      const total = 300;
      const keys = Array.from({ length: 30 }, (_, i) => `tenant:user-${i}`);
      await log.append(
        topic,
        Array.from({ length: total }, (_, i) => ({ key: keys[i % keys.length], value: { i } })),
      );
      await eventually(() => a.messages.length + b.messages.length >= total, `${total} messages`, 20_000);
      await eventually(
        async () => lag(await log.endPosition(topic), await log.committedPosition(topic, group)) === 0,
        'the commits',
        20_000,
      );

      const all = [...a.messages, ...b.messages];
      expect(all).toHaveLength(total);
      expect(new Set(all.map(id)).size).toBe(total);
      expect(new Set(all.map((m) => (m.value as { i: number }).i)).size).toBe(total);
      // Each member got its own partitions.
      expect(a.messages.length).toBeGreaterThan(0);
      expect(b.messages.length).toBeGreaterThan(0);
      const partitionsOf = (ms: ConsumedMessage[]) => new Set(ms.map((m) => m.partition));
      for (const partition of partitionsOf(a.messages)) expect(partitionsOf(b.messages).has(partition)).toBe(false);
    }, 60_000);

    it('a consumer stopped and a new one started (another process) resume from the committed offset', async () => {
      const topic = `${prefix}${uniqueName('resume')}`;
      const group = uniqueName('group');
      const writer = aLog();
      await writer.ensureTopics([topic]);
      const total = 40;
      await writer.append(
        topic,
        Array.from({ length: total }, (_, n) => ({ key: 'one-key', value: { n } })),
      );

      // The first consumer is stopped from inside its handler once it has handled 10:
      // stop() lets that chunk finish and commits it.
      const first: number[] = [];
      let stopping: Promise<void> | undefined;
      const firstLog = aLog();
      const subscription = await firstLog.subscribe({ topic, group, maxBatchSize: 5 }, async (batch) => {
        first.push(...batch.map((m) => (m.value as { n: number }).n));
        if (first.length >= 10) stopping ??= subscription.stop();
      });
      await eventually(() => stopping !== undefined, 'the first consumer to handle 10 messages', 20_000);
      await stopping;
      await firstLog.close();

      const committed = await writer.committedPosition(topic, group);
      expect(lag(await writer.endPosition(topic), committed)).toBe(total - first.length);
      expect(first).toEqual(Array.from({ length: first.length }, (_, n) => n));

      const second = await collect(aLog(), topic, group, 7);
      await eventually(() => second.messages.length >= total - first.length, 'the rest', 20_000);
      await eventually(
        async () => lag(await writer.endPosition(topic), await writer.committedPosition(topic, group)) === 0,
        'the commits',
        20_000,
      );
      expect(second.messages.map((m) => (m.value as { n: number }).n)).toEqual(
        Array.from({ length: total - first.length }, (_, i) => first.length + i),
      );
    }, 60_000);

    it('stopping while a batch keeps failing commits none of it: the next consumer gets it again', async () => {
      const topic = `${prefix}${uniqueName('failing')}`;
      const group = uniqueName('group');
      const writer = aLog();
      await writer.ensureTopics([topic]);
      await writer.append(
        topic,
        Array.from({ length: 6 }, (_, n) => ({ key: 'one-key', value: { n } })),
      );

      let attempts = 0;
      const failing = await aLog().subscribe({ topic, group, maxBatchSize: 3 }, async (batch) => {
        // The first chunk (0..2) succeeds, the second always fails.
        if ((batch[0].value as { n: number }).n >= 3) {
          attempts++;
          throw new Error('permanent failure (expected by the test)');
        }
      });
      await eventually(() => attempts >= 3, 'a few failed attempts', 20_000);
      await failing.stop();
      expect(lag(await writer.endPosition(topic), await writer.committedPosition(topic, group))).toBe(3);

      const next = await collect(aLog(), topic, group);
      await eventually(() => next.messages.length >= 3, 'the failed chunk again', 20_000);
      expect(next.messages.map((m) => (m.value as { n: number }).n)).toEqual([3, 4, 5]);
    }, 60_000);

    it('with a linger, a fetch waits for the batch to fill: messages appended shortly after the first arrive with it', async () => {
      const topic = `${prefix}${uniqueName('linger')}`;
      const writer = aLog();
      await writer.ensureTopics([topic]);
      const lingering = new KafkaEventLog({ ...options, lingerMs: 3_000 });
      logs.push(lingering);
      const batches: number[][] = [];
      open.push(
        await lingering.subscribe({ topic, group: uniqueName('group'), maxBatchSize: 50 }, async (batch) => {
          batches.push(batch.map((m) => (m.value as { n: number }).n));
        }),
      );
      // Let the group join and the first (empty) fetches settle, then write one message and, soon after, two more.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await writer.append(topic, [{ key: 'one-key', value: { n: 0 } }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.append(
        topic,
        [1, 2].map((n) => ({ key: 'one-key', value: { n } })),
      );
      await eventually(() => batches.flat().length === 3, 'all three messages', 20_000);
      expect(batches).toEqual([[0, 1, 2]]);
    }, 60_000);

    it('appends more than the broker takes in one request (message.max.bytes) in order, in several sends', async () => {
      const topic = `${prefix}${uniqueName('large')}`;
      const log = aLog();
      await log.ensureTopics([topic]);
      // 600 messages of ~4 KiB on one key (one partition): ~2.4 MiB, over the 1 MiB a record batch may hold.
      const padding = 'x'.repeat(4096);
      const end = await log.append(
        topic,
        Array.from({ length: 600 }, (_, n) => ({ key: 'one-key', value: { n, padding } })),
      );
      expect(Object.values(end).reduce((a, b) => a + b, 0)).toBe(600);
      const { messages } = await collect(log, topic, uniqueName('group'), 500);
      await eventually(() => messages.length === 600, 'all 600 messages', 20_000);
      expect(messages.map((m) => (m.value as { n: number }).n)).toEqual(Array.from({ length: 600 }, (_, n) => n));
    }, 60_000);

    it('refuses resetGroup while a member of the group is running (in this process or another)', async () => {
      const topic = `${prefix}${uniqueName('reset')}`;
      const group = uniqueName('group');
      const log = aLog();
      await log.ensureTopics([topic]);
      await collect(log, topic, group);
      await expect(log.resetGroup(topic, group, { to: 'beginning' })).rejects.toThrow(/running/);
      await expect(aLog().resetGroup(topic, group, { to: 'beginning' })).rejects.toThrow(/running/);
    }, 60_000);
  });
});
