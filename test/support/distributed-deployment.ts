import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { KafkaEventLog } from '@engram/adapters-kafka';
import { MongoKeyStore } from '@engram/adapters-mongodb';
import { MasterKey, parseMasterKey } from '@engram/domain';
import type { ConsumedMessage } from '@engram/ports';
import { DataKeyRing, SealingEventLog } from '@engram/services';

/** Where the real servers are: `npm run test:infra` starts them on these defaults. */
export const infra = {
  kafkaBrokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  mongodbUri: process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/',
  elasticsearchUrl: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200',
};

/**
 * The names one distributed test deployment owns on the shared servers. Every
 * name carries a random suffix, so concurrent runs (other engineers, CI) never
 * touch each other's data, and teardown deletes exactly these.
 */
export interface Deployment {
  /** Kafka topics and consumer groups start with it. */
  readonly topicPrefix: string;
  readonly database: string;
  /** The search alias; indices are `<prefix>-v<n>`. */
  readonly indexPrefix: string;
  /** ENGRAM_MASTER_KEY of its processes (hex): every restart must wrap and unwrap with the same. */
  readonly masterKey: string;
}

export function newDeployment(label = 'it'): Deployment {
  const suffix = randomBytes(5).toString('hex');
  return {
    topicPrefix: `engram-${label}-${suffix}.`,
    database: `engram_${label}_${suffix}`,
    indexPrefix: `engram-${label}-${suffix}-memories`,
    masterKey: randomBytes(32).toString('hex'),
  };
}

/** The deployment recorded in `dir`, created (and recorded) on first use: a restart finds the same names. */
export function loadDeployment(dir: string): Deployment {
  const file = path.join(dir, 'deployment.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Deployment;
  const deployment = newDeployment();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(deployment));
  return deployment;
}

/** The environment a distributed engram process of this deployment runs with. */
export function distributedEnv(deployment: Deployment): Record<string, string> {
  return {
    ENGRAM_MODE: 'distributed',
    KAFKA_BROKERS: infra.kafkaBrokers,
    KAFKA_CLIENT_ID: 'engram-infra-test',
    KAFKA_PARTITIONS: '3',
    ENGRAM_TOPIC_PREFIX: deployment.topicPrefix,
    MONGODB_URI: infra.mongodbUri,
    MONGODB_DATABASE: deployment.database,
    ELASTICSEARCH_URL: infra.elasticsearchUrl,
    ELASTICSEARCH_INDEX_PREFIX: deployment.indexPrefix,
    ENGRAM_MASTER_KEY: deployment.masterKey,
  };
}

function kafka(): Kafka {
  return new Kafka({ clientId: 'engram-infra-test-admin', brokers: infra.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
}

async function topicsOf(deployment: Deployment): Promise<string[]> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).filter((topic) => topic.startsWith(deployment.topicPrefix)).sort();
  } finally {
    await admin.disconnect();
  }
}

async function indicesOf(client: Client, deployment: Deployment): Promise<string[]> {
  const indices = await client.indices.get({ index: `${deployment.indexPrefix}-v*`, allow_no_indices: true, expand_wildcards: 'all' });
  return Object.keys(indices).filter((name) => name.startsWith(`${deployment.indexPrefix}-v`));
}

/** Deletes the deployment's topics, consumer groups, database, indices and index templates: its names only. */
export async function destroyDeployment(deployment: Deployment): Promise<void> {
  const failures: unknown[] = [];
  const attempt = async (step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  };

  await attempt(async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(deployment.topicPrefix));
      if (groups.length > 0) await admin.deleteGroups(groups);
      const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(deployment.topicPrefix));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
  });

  await attempt(async () => {
    const client = await MongoClient.connect(infra.mongodbUri, { serverSelectionTimeoutMS: 5_000 });
    try {
      await client.db(deployment.database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  await attempt(async () => {
    const client = new Client({ node: infra.elasticsearchUrl });
    try {
      for (const index of await indicesOf(client, deployment)) await client.indices.delete({ index });
      const templates = await client.indices
        .getIndexTemplate({ name: `${deployment.indexPrefix}-v*` })
        .catch(() => ({ index_templates: [] }));
      for (const { name } of templates.index_templates) await client.indices.deleteIndexTemplate({ name });
    } finally {
      await client.close();
    }
  });

  if (failures.length > 0) throw new AggregateError(failures, `could not clean up deployment ${deployment.topicPrefix}`);
}

/**
 * Every message of a topic, from the beginning to its end as it is now, read
 * by a throwaway consumer group of the deployment (deleted with it). Payloads
 * are opened with the deployment's keys, as engram reads them (`raw` stays as
 * stored: ciphertext).
 */
export async function readTopic(deployment: Deployment, topic: string): Promise<ConsumedMessage[]> {
  const mongo = await MongoClient.connect(infra.mongodbUri, { serverSelectionTimeoutMS: 5_000 });
  const keys = new DataKeyRing(new MongoKeyStore(mongo.db(deployment.database), new MasterKey(parseMasterKey(deployment.masterKey)!)));
  const kafkaLog = new KafkaEventLog({
    brokers: infra.kafkaBrokers.split(','),
    clientId: 'engram-infra-test-reader',
    logLevel: 'nothing',
    maxWaitTimeMs: 100,
  });
  const log = new SealingEventLog(kafkaLog, keys);
  try {
    const end = await log.endPosition(topic);
    const messages: ConsumedMessage[] = [];
    const seen = new Map<number, number>();
    const done = () => Object.entries(end).every(([p, offset]) => (seen.get(Number(p)) ?? 0) >= offset);
    if (done()) return [];
    const group = `${deployment.topicPrefix}reader-${randomBytes(4).toString('hex')}`;
    const subscription = await log.subscribe({ topic, group }, async (batch) => {
      messages.push(...batch);
      for (const m of batch) seen.set(m.partition, Math.max(seen.get(m.partition) ?? 0, m.offset + 1));
    });
    const deadline = Date.now() + 30_000;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.stop();
    if (!done()) throw new Error(`could not read all of ${topic}`);
    // Only what was there when we started: a reader never races the writers.
    return messages.filter((m) => m.offset < (end[m.partition] ?? 0));
  } finally {
    await log.close();
    await mongo.close();
  }
}

/**
 * Everything the deployment stores, as one string: every message of its
 * topics, every document of its database and of its indices.
 */
export async function dumpDeployment(deployment: Deployment): Promise<string> {
  let all = '';

  for (const topic of await topicsOf(deployment)) {
    all += (await readTopic(deployment, topic)).map((m) => `${m.key}\n${m.raw}\n`).join('');
  }

  const mongo = await MongoClient.connect(infra.mongodbUri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const db = mongo.db(deployment.database);
    for (const { name } of await db.listCollections().toArray()) {
      all += JSON.stringify(await db.collection(name).find({}).toArray());
    }
  } finally {
    await mongo.close();
  }

  const es = new Client({ node: infra.elasticsearchUrl });
  try {
    for (const index of await indicesOf(es, deployment)) {
      await es.indices.refresh({ index });
      const response = await es.search({ index, size: 10_000, query: { match_all: {} } });
      all += JSON.stringify(response.hits.hits);
    }
  } finally {
    await es.close();
  }
  return all;
}
