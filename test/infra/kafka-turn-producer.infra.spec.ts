import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { deterministicId, parseEvent, Topics, TurnRecorded } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { consumeUpTo, DEFAULT_TENANT, EventPublisher, PipelineProgress } from '@engram/services';
import { eventually } from '@engram/testing';
import { KafkaTurnProducer, TurnValidationError } from '../../libs/client/src/kafka';
import { infra } from '../support/distributed-deployment';
import { EngramHarness, startEngram, useEngramMode } from '../support/engram-harness';

/**
 * The SDK's KafkaTurnProducer against real Kafka, with engram's distributed pipeline (Kafka,
 * MongoDB/FerretDB, Elasticsearch) consuming what it writes: the messages are keyed
 * `tenantId:userId`, pass engram's own event parser, carry no raw PII, and the turns are
 * remembered and recalled; sending the same turns again changes nothing downstream. And the
 * README's producer example runs verbatim against the built package.
 */
jest.setTimeout(300_000);
useEngramMode('distributed');

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
const PHONE = '13812345678';
const EMAIL = 'laozhou@example.com';

describe('KafkaTurnProducer on Kafka, into the distributed pipeline', () => {
  let engram: EngramHarness;
  let producer: KafkaTurnProducer;
  afterAll(async () => {
    await producer?.disconnect();
    await engram?.destroy();
  });

  async function recall(userId: string, query: string) {
    return (await engram.http().post('/v1/recall').send({ userId, query, sessionId: 's1' }).expect(200)).body as {
      facts: { content: string }[];
      memories: { content: string }[];
      recent: { turnId: string; text: string }[];
    };
  }

  it('writes keyed, valid, masked TurnRecorded events that the pipeline remembers once, however often they are sent', async () => {
    engram = await startEngram({ env: { ENGRAM_FORGETTING_INTERVAL_MS: '0' } });
    const publisher = engram.app.get(EventPublisher);
    const turnsTopic = publisher.topic(Topics.turns);
    producer = new KafkaTurnProducer({
      brokers: infra.kafkaBrokers.split(','),
      tenantId: DEFAULT_TENANT,
      topicPrefix: turnsTopic.slice(0, -Topics.turns.length),
      clientId: 'engram-infra-test-producer',
    });
    await producer.connect();

    const turns = [
      {
        turnId: 't1',
        role: 'user' as const,
        text: `我叫老周，手机 ${PHONE}，邮箱 ${EMAIL}，我们的数据库用 PostgreSQL`,
        occurredAt: '2026-11-30T08:00:00Z',
      },
      { turnId: 't2', role: 'assistant' as const, text: '好的老周，记下了：数据库是 PostgreSQL', occurredAt: '2026-11-30T08:00:05Z' },
    ];
    const sent = await producer.send('laozhou', 's1', turns);
    expect(sent.accepted).toBe(2);
    // Refused before anything is sent, naming the field.
    await expect(producer.send('laozhou', 's1', [{ role: 'robot' as never, text: 'x' }])).rejects.toThrow(
      expect.objectContaining({ constructor: TurnValidationError, fields: ['turns.0.role'] }),
    );

    // What is on the topic: keyed by tenant and user, valid by engram's parser, masked.
    const log = engram.app.get<EventLog>(EventLog);
    const messages: { key: string; raw: string; value: unknown }[] = [];
    await consumeUpTo(log, turnsTopic, `producer-check-${randomUUID()}`, await log.endPosition(turnsTopic), async (batch) => {
      messages.push(...batch.map((m) => ({ key: m.key, raw: m.raw, value: m.value })));
    });
    expect(messages.map((m) => m.key)).toEqual([`${DEFAULT_TENANT}:laozhou`, `${DEFAULT_TENANT}:laozhou`]);
    const events = messages.map((m) => parseEvent(m.value) as TurnRecorded);
    expect(events.map((e) => e.eventId)).toEqual(sent.eventIds);
    expect(events.map((e) => [e.type, e.schemaVersion, e.payload.turnId, e.payload.role])).toEqual([
      ['TurnRecorded', 2, 't1', 'user'],
      ['TurnRecorded', 2, 't2', 'assistant'],
    ]);
    expect(events[0].payload.text).toContain('[PHONE]');
    expect(events[0].payload.text).toContain('[EMAIL]');
    expect(events[1].payload.previousText).toBe(events[0].payload.text);
    for (const m of messages) {
      expect(m.raw).not.toContain(PHONE);
      expect(m.raw).not.toContain(EMAIL);
    }

    // The pipeline remembers them: recall finds the fact and the session's turns.
    await eventually(
      async () => (await recall('laozhou', '我们的数据库是什么')).memories.some((m) => m.content.includes('PostgreSQL')),
      'recall to find the produced turn',
      120_000,
    );

    // Sent again (a retrying application): the same event ids, remembered once.
    const before = await recall('laozhou', '我们的数据库是什么');
    const again = await producer.send('laozhou', 's1', turns);
    expect(again.eventIds).toEqual(sent.eventIds);
    const progress = engram.app.get(PipelineProgress);
    await eventually(async () => (await progress.pending()) === 0, 'the pipeline to settle', 120_000);
    const after = await recall('laozhou', '我们的数据库是什么');
    expect(after.recent.map((t) => t.turnId)).toEqual(['t1', 't2']);
    expect(after.memories.map((m) => m.content)).toEqual(before.memories.map((m) => m.content));

    await producer.disconnect();
    await engram.stop();
    const stored = await engram.storedData();
    expect(stored).toContain('PostgreSQL');
    expect(stored).not.toContain(PHONE);
    expect(stored).not.toContain(EMAIL);
  });

  it("runs the README's producer example verbatim, from the built package, into the pipeline", async () => {
    await run(process.execPath, [path.join(root, 'scripts/build-client.js')], { cwd: root });
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(readme.split('### Produce straight to Kafka')[1])![1];
    const readmeEngram = await startEngram({ env: { ENGRAM_FORGETTING_INTERVAL_MS: '0' } });
    const app = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-sdk-kafka-readme-'));
    try {
      const turnsTopic = readmeEngram.app.get(EventPublisher).topic(Topics.turns);
      fs.mkdirSync(path.join(app, 'node_modules/@engram'), { recursive: true });
      fs.symlinkSync(path.join(root, 'libs/client'), path.join(app, 'node_modules/@engram/client'));
      fs.symlinkSync(path.join(root, 'node_modules/kafkajs'), path.join(app, 'node_modules/kafkajs'));
      fs.writeFileSync(path.join(app, 'example.mjs'), example);
      const { stdout } = await run(process.execPath, ['example.mjs'], {
        cwd: app,
        env: { ...process.env, KAFKA_BROKERS: infra.kafkaBrokers, ENGRAM_TOPIC_PREFIX: turnsTopic.slice(0, -Topics.turns.length) },
      });
      expect(stdout).toContain(deterministicId('turn', DEFAULT_TENANT, 'laozhou', 't1'));
      await eventually(
        async () =>
          (
            (await readmeEngram.http().post('/v1/recall').send({ userId: 'laozhou', query: '我们的数据库是什么' }).expect(200)).body
              .memories as { content: string }[]
          ).some((m) => m.content.includes('PostgreSQL')),
        "recall to find the README example's turn",
        120_000,
      );
      await readmeEngram.stop();
      expect(await readmeEngram.storedData()).not.toContain(PHONE);
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
      await readmeEngram.destroy();
    }
  });
});
