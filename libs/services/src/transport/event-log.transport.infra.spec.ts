import { KafkaEventLog, type KafkaEventLogOptions } from '@engram/adapters-kafka';
import { uniqueSuffix } from '@engram/testing';
import { Kafka, logLevel } from 'kafkajs';
import { GroupScopedEventLog } from '../bindings/group-scoped-event-log';
import { deadLetterSuite } from './dead-letters.suite';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

const options: KafkaEventLogOptions = {
  brokers,
  clientId: 'engram-dlq-infra-spec',
  partitions: 3,
  // A member notices a rebalance at its next heartbeat: keep joins in tests quick.
  heartbeatIntervalMs: 500,
  sessionTimeoutMs: 10_000,
  maxWaitTimeMs: 100,
  retryDelayMs: 10,
  maxRetryDelayMs: 50,
  logLevel: 'error',
};

/** Deletes the consumer groups and topics whose names start with `prefix`: this run's only. */
async function deleteRun(prefix: string): Promise<void> {
  const admin = new Kafka({ clientId: 'engram-dlq-infra-spec-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups);
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

// The suite the embedded log runs in event-log.transport.int.spec.ts, on real Kafka: topics
// under a fresh prefix, consumer groups scoped by it, as the distributed bindings wire it.
deadLetterSuite(
  'Kafka',
  async () => {
    const topicPrefix = `engram-dlq-test-${uniqueSuffix()}.`;
    const log = new GroupScopedEventLog(new KafkaEventLog(options), topicPrefix);
    return {
      log,
      topicPrefix,
      cleanup: async () => {
        try {
          await log.close();
        } finally {
          await deleteRun(topicPrefix);
        }
      },
    };
  },
  // A group join (one per dead-letter read) takes a few hundred ms to seconds.
  { timeoutMs: 30_000, testTimeoutMs: 120_000 },
);
