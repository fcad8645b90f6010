import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { LogEncryptor, PipelineProgress, startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { KafkaTurnProducer } from '../../libs/client/src/kafka';
import { distributedEnv, dumpDeployment, infra, loadDeployment, readTopic } from '../support/distributed-deployment';
import { EngramHarness, rebuildOffline, startEngram, turnsBody, useEngramMode } from '../support/engram-harness';
import { drained, startOldEngram } from '../support/old-engram';

/*
 * The Kafka twin of test/e2e/encrypt-log.e2e.spec.ts: a distributed engram from before
 * crypto-shredding (the Kafka log bound as it is, unsealed) writes its users' words in plaintext
 * to every topic and forgets one user; `engram encrypt-log`, killed mid-copy and resumed by a new
 * process, copies every topic, sealed, into `<topic>.log2`, moves every consumer group over,
 * switches and deletes the old topics. Then the
 * broker's log segments (once Kafka has removed the deleted topics' files), every message of the
 * deployment's topics, MongoDB and Elasticsearch hold none of the forgotten user's words; the log
 * holds no user's words in plaintext; the others recall as before, also after an offline rebuild;
 * and forgetting shreds.
 */
useEngramMode('distributed');
jest.setTimeout(420_000);

const KAFKA_DATA = path.join(process.env.ENGRAM_INFRA_CACHE ?? path.join(__dirname, '../../.cache/infra'), 'run/kafka/data');
const FORGOTTEN = 'forgotten-before';
const LATER = 'forgotten-after';
const KEPT = 'kept-user';
const FORGOTTEN_WORDS = ['Quillbramble', 'Zephyrinex', '琥珀猫头鹰'];
const LATER_WORDS = ['Tamarindol', '翡翠蜻蜓'];
const KEPT_WORDS = ['Marmalorian', '紫檀琵琶'];

/** The deployment's topic directories (`<topic>-<partition>`, and `…-delete` ones Kafka has not removed yet). */
function topicDirs(topicPrefix: string): string[] {
  return fs
    .readdirSync(KAFKA_DATA, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith(topicPrefix))
    .map((e) => e.name);
}

function segmentsOf(topicPrefix: string): Buffer[] {
  return topicDirs(topicPrefix).flatMap((name) => {
    const dir = path.join(KAFKA_DATA, name);
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .map((f) => fs.readFileSync(path.join(dir, f)));
  });
}

const inBytes = (buffers: readonly Buffer[], words: readonly string[]) =>
  words.filter((word) => buffers.some((b) => b.includes(Buffer.from(word, 'utf8')) || b.includes(Buffer.from(word.toLowerCase(), 'utf8'))));
const inText = (text: string, words: readonly string[]) => words.filter((word) => text.includes(word) || text.includes(word.toLowerCase()));

/** Kafka's admin client for one call, disconnected after. */
async function withAdmin<T>(use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({
    clientId: 'engram-infra-test-admin',
    brokers: infra.kafkaBrokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

const groupsOf = (): Promise<string[]> => withAdmin(async (admin) => (await admin.listGroups()).groups.map((g) => g.groupId).sort());

const topicsOf = (prefix: string): Promise<string[]> =>
  withAdmin(async (admin) => (await admin.listTopics()).filter((t) => t.startsWith(prefix)).sort());

describe('engram encrypt-log on Kafka: a log from before crypto-shredding, sealed', () => {
  let engram: EngramHarness | undefined;
  afterAll(async () => {
    await engram?.destroy();
  });

  function configOf(dataDir: string) {
    return loadConfig({
      LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
      ENGRAM_AFTER_TIMEOUT_MS: '30000',
      ...distributedEnv(loadDeployment(dataDir)),
      ENGRAM_DATA_DIR: dataDir,
    });
  }

  async function recall(userId: string, query: string): Promise<string> {
    return JSON.stringify((await engram!.http().post('/v1/recall').send({ userId, query, k: 20 }).expect(200)).body);
  }

  it('seals every topic into version 2 and deletes the old ones: nothing of the forgotten user in Kafka, MongoDB or Elasticsearch, the others recalled, forgetting shreds', async () => {
    expect(fs.existsSync(KAFKA_DATA)).toBe(true);
    // A harness only for the deployment's names and its teardown; the old engram runs first.
    engram = await startEngram();
    const dataDir = engram.dataDir;
    await engram.stop();
    const deployment = loadDeployment(dataDir);
    const prefix = deployment.topicPrefix;
    // The harness started a sealing engram on an empty log: start from a log that has never seen one.
    const empty = await topicsOf(prefix);
    expect(empty.every((t) => !t.includes('.log'))).toBe(true);

    const old = await startOldEngram(configOf(dataDir));
    try {
      const http = () => request(old.getHttpServer());
      const turns = (userId: string, texts: string[]) =>
        http()
          .post('/v1/turns')
          .send(
            turnsBody(
              userId,
              's1',
              texts.map((text, i) => ({ turnId: `t${i}`, text })),
            ),
          )
          .expect(202);
      await turns(FORGOTTEN, ['我叫Zephyrinex。', 'My cat is called Quillbramble and I love 琥珀猫头鹰 cookies.']);
      await turns(LATER, ['I prefer Tamarindol tea over any other.', '我爱翡翠蜻蜓。']);
      await turns(KEPT, ['My dog is called Marmalorian.', '我最喜欢的乐器是紫檀琵琶。']);
      await drained(old, 50);
      await http().delete(`/v1/users/${FORGOTTEN}`).expect(200);
      await drained(old, 50);
    } finally {
      await old.close();
    }
    const before = await topicsOf(prefix);
    const messagesBefore = new Map<string, number>();
    for (const topic of before) messagesBefore.set(topic, (await readTopic(deployment, topic)).length);
    expect(inBytes(segmentsOf(prefix), FORGOTTEN_WORDS)).toEqual(FORGOTTEN_WORDS); // plaintext on the broker's disk

    // Killed during the copy: the workers then refuse to start, and a rerun (a new process) resumes.
    const first = await startApp(EngramModule.forMaintenance({ config: configOf(dataDir) }), { http: false, stages: false });
    try {
      const killed = first.get(LogEncryptor).run({
        onProgress: (p) => {
          if (p.phase === 'sealing' && p.done > 0) throw new Error('killed');
        },
      });
      await expect(killed).rejects.toThrow('killed');
    } finally {
      await first.close();
    }
    await expect(startEngram({ dataDir })).rejects.toThrow(/being sealed into version 2 by engram encrypt-log/);
    const maintenance = await startApp(EngramModule.forMaintenance({ config: configOf(dataDir) }), { http: false, stages: false });
    let result;
    try {
      result = await maintenance.get(LogEncryptor).run();
    } finally {
      await maintenance.close();
    }
    expect(result).toMatchObject({ from: 1, to: 2, switched: true, resumed: true, leftOver: [] });
    expect(result.topics.reduce((n, t) => n + t.shredded, 0)).toBeGreaterThan(0);
    expect(result.topics.reduce((n, t) => n + t.unattributed, 0)).toBe(0);
    // The runs read every topic with a group of their own, and left none behind.
    expect((await groupsOf()).filter((g) => g.includes('encrypt-log-'))).toEqual([]);

    // Only version 2 left, message for message; no user's words in any message as stored.
    const readers = (topics: readonly string[]) => topics.filter((t) => !t.startsWith(`${prefix}reader`));
    const after = await topicsOf(prefix);
    expect(readers(after)).toEqual(
      readers(before)
        .map((t) => `${t}.log2`)
        .sort(),
    );
    for (const topic of readers(before)) {
      const copied = await readTopic(deployment, `${topic}.log2`);
      expect({ topic, messages: copied.length }).toEqual({ topic, messages: messagesBefore.get(topic) });
      expect({
        topic,
        plaintext: inText(copied.map((m) => m.raw).join('\n'), [...FORGOTTEN_WORDS, ...LATER_WORDS, ...KEPT_WORDS]),
      }).toEqual({ topic, plaintext: [] });
      // Opened with the deployment's keys: the forgotten user's events are shredded, the others' read.
      const forgotten = copied.filter(
        (m) => (m.value as { userId?: string }).userId === FORGOTTEN && (m.value as { type?: string }).type !== 'UserForgotten',
      );
      expect({ topic, readable: forgotten.filter((m) => !m.shredded).length }).toEqual({ topic, readable: 0 });
    }
    // Kafka removes a deleted topic's files file.delete.delay.ms (60 s) later: then no segment holds the words.
    const deadline = Date.now() + 150_000;
    while (topicDirs(prefix).some((name) => name.endsWith('-delete')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(topicDirs(prefix).filter((name) => name.endsWith('-delete'))).toEqual([]);
    expect(inBytes(segmentsOf(prefix), [...FORGOTTEN_WORDS, ...LATER_WORDS, ...KEPT_WORDS])).toEqual([]);
    expect(inBytes(segmentsOf(prefix), [KEPT])).toEqual([KEPT]); // envelopes show: the scan reads what is there

    // engram on version 2: positions carried over, the others recall; after an offline rebuild too.
    engram = await startEngram({ dataDir });
    expect(await engram.app.get(PipelineProgress).pending()).toBe(0);
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
    await engram.stop();
    expect(await rebuildOffline(dataDir)).toBeGreaterThan(0);
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
    expect(await recall(LATER, 'Tamarindol tea')).toContain('Tamarindol');
    expect(await recall(FORGOTTEN, 'Quillbramble cat')).not.toContain('Quillbramble');

    // A producer writing straight to Kafka follows the switch with the version encrypt-log reported.
    const producer = new KafkaTurnProducer({
      brokers: infra.kafkaBrokers.split(','),
      tenantId: 'default',
      topicPrefix: prefix,
      logVersion: result.to,
    });
    await producer.connect();
    try {
      await producer.send(KEPT, 's2', [{ turnId: 'p1', role: 'user', text: 'My parrot is called Fennimore.' }]);
    } finally {
      await producer.disconnect();
    }
    const deadlineForParrot = Date.now() + 60_000;
    while (!(await recall(KEPT, 'parrot Fennimore')).includes('Fennimore') && Date.now() < deadlineForParrot)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await recall(KEPT, 'parrot Fennimore')).toContain('Fennimore');
    expect(await topicsOf(prefix)).not.toContain(`${prefix}memory.turns.v1`);

    // Forgetting shreds now: nothing of the user anywhere the deployment stores.
    await engram.http().delete(`/v1/users/${LATER}`).expect(200);
    await engram.stop();
    expect(await rebuildOffline(dataDir)).toBeGreaterThan(0);
    const stored = await dumpDeployment(deployment);
    expect(inText(stored, [...FORGOTTEN_WORDS, ...LATER_WORDS])).toEqual([]);
    expect(inText(stored, KEPT_WORDS)).toEqual(KEPT_WORDS);
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
  });
});
