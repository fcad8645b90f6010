import type { ConsumedMessage } from '@engram/ports';
import { eventually, uniqueSuffix } from '@engram/testing';
import { type Consumer, Kafka, logLevel, Partitioners } from 'kafkajs';
import type { KafkaConsumerFailure, ResolvedOptions } from './kafka-options';
import { KafkaSubscription } from './kafka-subscription';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const kafka = new Kafka({ clientId: 'engram-subscription-spec', brokers, logLevel: logLevel.NOTHING });
const topic = `engram-test-${uniqueSuffix()}.supervised`;

const options: ResolvedOptions = {
  partitions: 1,
  replicationFactor: 1,
  retentionMs: undefined,
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 100,
  lingerMs: 0,
  maxSendBytes: 512 * 1024,
  maxBatchSize: 100,
  retryDelayMs: 10,
  maxRetryDelayMs: 50,
  onHandlerError: () => undefined,
  onConsumerFailure: () => undefined,
  stallTimeoutMs: 1_500,
};

describe('KafkaSubscription: a consumer that stops for good is replaced', () => {
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
    await producer.connect();
  });

  afterAll(async () => {
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  const send = (from: number, to: number) =>
    producer.send({ topic, acks: -1, messages: Array.from({ length: to - from }, (_, i) => ({ key: 'k', value: `"m${from + i}"` })) });

  it('a consumer that stopped without crashing (no sign of life) is replaced in its group: every message once, none lost', async () => {
    const consumers: Consumer[] = [];
    const failures: KafkaConsumerFailure[] = [];
    const received: string[] = [];
    const group = `supervised-${uniqueSuffix()}`;
    const subscription = new KafkaSubscription(
      topic,
      group,
      options.maxBatchSize,
      async (messages: readonly ConsumedMessage[]) => {
        for (const message of messages) received.push(message.raw);
      },
      () => {
        const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
        consumers.push(consumer);
        return consumer;
      },
      { ...options, onConsumerFailure: (_error, failure) => failures.push(failure) },
      () => undefined,
    );
    await subscription.start();
    try {
      await send(0, 5);
      await eventually(() => received.length === 5, 'the first five messages', 20_000);

      // kafkajs's stop(): the runner ends, no crash, no event — the consumer does nothing from now on.
      await consumers[0].stop();
      await send(5, 10);
      await eventually(() => received.length === 10, 'the next five, through a replacement consumer', 30_000);

      expect(consumers.length).toBe(2);
      expect(failures.map((f) => f.what)).toEqual(['stalled; replacing it']);
      expect(received).toEqual(Array.from({ length: 10 }, (_, i) => `"m${i}"`));
    } finally {
      await subscription.stop();
    }
  }, 60_000);
});
