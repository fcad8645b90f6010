import Ajv, { ValidateFunction } from 'ajv';
import { randomUUID } from 'node:crypto';
import { ALL_TOPICS, eventJsonSchemas, TOPIC_CATALOGUE, topicEvents } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { consumeUpTo, DEFAULT_TENANT, EventPublisher } from '@engram/services';
import { turnRecordedEvents, TurnValidationError } from '../../libs/client/src/kafka';
import { EngramHarness, startEngram, TestClock } from '../support/engram-harness';

/**
 * The published log contract against what engram really writes: every kind of write goes through
 * the embedded server, then every event on every topic must be one its topic lists
 * (libs/contracts/src/topic-catalogue.ts → docs/asyncapi.json) and valid by its JSON Schema
 * (docs/events). And the SDK's KafkaTurnProducer builds exactly the gateway's TurnRecorded events
 * and refuses exactly the turns the gateway refuses.
 */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

function validators(): Record<string, ValidateFunction> {
  const ajv = new Ajv({ strict: true, allErrors: true });
  ajv.addFormat('date-time', (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
  return Object.fromEntries(
    Object.entries(eventJsonSchemas()).map(([file, schema]) => [file.replace('.schema.json', ''), ajv.compile(schema)]),
  );
}

describe('the log contract against what engram writes', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  beforeAll(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterAll(async () => engram.destroy());

  async function say(
    userId: string,
    turns: { turnId: string; text: string; role?: string; speaker?: string; channel?: string }[],
    occurredAt = clock.now().toISOString(),
  ) {
    const body = { userId, sessionId: 's1', turns: turns.map((t) => ({ role: 'user', occurredAt, ...t })) };
    const response = await engram.http().post('/v1/turns').send(body).expect(202);
    await engram.http().post('/v1/recall').send({ userId, query: 'x', after: response.body.position }).expect(200);
    return body;
  }

  /** Every message on a topic, from the beginning. */
  async function read(topic: string) {
    const log = engram.app.get<EventLog>(EventLog);
    const name = engram.app.get(EventPublisher).topic(topic);
    const out: { key: string; value: unknown; shredded: boolean }[] = [];
    await consumeUpTo(log, name, `contract-${randomUUID()}`, await log.endPosition(name), async (messages) => {
      out.push(...messages.map((m) => ({ key: m.key, value: m.value, shredded: m.shredded === true })));
    });
    return out;
  }

  it('every event on every topic is listed for that topic, keyed tenantId:userId, and valid by its JSON Schema', async () => {
    await say('laozhou', [
      { turnId: 't1', text: '我叫老周，手机 13812345678，预算控制在三万以内' },
      { turnId: 't2', role: 'assistant', text: '好的老周，我记下了' },
    ]);
    await say('laozhou', [{ turnId: 't3', text: 'I prefer VS Code for TypeScript work', channel: 'web' }]);
    await say('laozhou', [{ turnId: 't4', text: 'I prefer VS Code for TypeScript work' }]);
    clock.set('2026-12-05T09:00:00Z');
    await say('laozhou', [{ turnId: 't5', text: '预算提到五万了' }]);
    const memories = (await engram.http().get('/v1/users/laozhou/memories?status=all').expect(200)).body.memories as {
      memoryId: string;
      attribute: string;
      kind: string;
      version: number;
    }[];
    const budget = memories.find((m) => m.attribute === 'budget' && m.kind !== 'episode')!;
    expect(budget.version).toBe(2);
    await engram.http().post(`/v1/users/laozhou/memories/${budget.memoryId}/revert`).send({ version: 1 }).expect(200);
    await engram.http().delete(`/v1/users/laozhou/memories/${budget.memoryId}`).send({ reason: '不再适用' }).expect(200);
    await engram
      .http()
      .put('/v1/users/laozhou/profile')
      .send({ attributes: { city: '杭州' } })
      .expect(200);
    const bundle = (await engram.http().get('/v1/users/laozhou/export').expect(200)).body;
    await engram.http().post('/v1/users/copy/import').send(bundle).expect(200);
    // A one-off request, forgotten a week later: the sweep's ForgettingRequested, then MemoryExpired.
    await say('xiaoli', [{ turnId: 'f1', text: '帮我看看这家店的营业时间，我喜欢吃川菜' }]);
    clock.advanceDays(8);
    expect((await engram.http().post('/v1/forgetting/run').send({}).expect(200)).body.expired).toBeGreaterThan(0);
    await engram
      .http()
      .delete('/v1/users/copy')
      .expect((r) => expect(r.status).toBeLessThan(300));

    const validate = validators();
    const seen = new Set<string>();
    const problems: string[] = [];
    const shredded = new Set<string>();
    for (const topic of ALL_TOPICS) {
      const contract = TOPIC_CATALOGUE.find((c) => c.topic === topic)!;
      const allowed = topicEvents(contract);
      for (const { key, value, shredded: sealedForGood } of await read(topic)) {
        const event = value as { type: string; tenantId: string; userId: string };
        seen.add(event.type);
        if (!allowed.includes(event.type as never)) problems.push(`${event.type} on ${topic}, which does not list it`);
        if (key !== `${event.tenantId}:${event.userId}`) problems.push(`${event.type} on ${topic} keyed ${key}`);
        // A forgotten user's events: their key is destroyed, so only the envelope can be read (docs/security.md).
        if (sealedForGood) {
          shredded.add(event.userId);
          continue;
        }
        const check = validate[event.type];
        if (!check?.(event)) problems.push(`${event.type} on ${topic} fails its schema: ${JSON.stringify(check?.errors)}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...shredded]).toEqual(['copy']); // the user forgotten above, and nobody else
    // The scenario really wrote every sender's events (each row of the catalogue but the external producer).
    const expected = [
      'TurnRecorded',
      'UserForgotten',
      'TurnScreened',
      'MemoriesExtracted',
      'MemoryAdded',
      'MemorySuperseded',
      'MemoryReinforced',
      'MemoryRetracted',
      'MemoryRetractionRequested',
      'MemoryRevertRequested',
      'ProfileUpdateRequested',
      'MemoriesImportRequested',
      'ForgettingRequested',
      'MemoryExpired',
      'MemoriesAccessed',
    ];
    expect(expected.filter((type) => !seen.has(type))).toEqual([]);
  });

  it("the SDK's turnRecordedEvents builds exactly the gateway's events (masking, ids, previousText, duplicates)", async () => {
    const turns = [
      {
        turnId: 'p1',
        role: 'user',
        speaker: 'Lao Zhou 13812345678',
        text: '我的邮箱是 laozhou@example.com，卡号 4111 1111 1111 1111',
        channel: 'app',
      },
      { turnId: 'p2', role: 'assistant', text: '收到，已记下你的邮箱' },
      { turnId: 'p2', role: 'assistant', text: 'a duplicate: counted once' },
      { turnId: 'p3', role: 'assistant', text: 'and one more from me' },
      { turnId: 'p4', role: 'user', text: 'call me on +1 415 555 0100' },
    ];
    await say('sdk-user', turns as never, '2026-12-05T08:30:00+08:00');
    const written = (await read('memory.turns.v1'))
      .map((m) => m.value as { userId: string; recordedAt: string; type: string })
      .filter((e) => e.userId === 'sdk-user');
    const built = turnRecordedEvents({
      tenantId: DEFAULT_TENANT,
      userId: 'sdk-user',
      sessionId: 's1',
      turns: turns.map((t) => ({ ...t, occurredAt: '2026-12-05T08:30:00+08:00' })) as never,
      recordedAt: new Date(written[0].recordedAt),
    });
    expect(built).toEqual(written);
    expect(JSON.stringify(built)).not.toMatch(/13812345678|laozhou@example|4111 1111|415 555/);
  });

  it('the SDK refuses the turns the gateway refuses, naming the same field', async () => {
    const good = { turnId: 'v1', role: 'user', text: 'fine', occurredAt: '2026-11-30T08:00:00Z' };
    const bad: [string, Record<string, unknown>][] = [
      ['turns.0.role', { role: 'robot' }],
      ['turns.0.text', { text: '   ' }],
      ['turns.0.text', { text: 'broken \ud800 text' }],
      ['turns.0.text', { text: 42 }],
      ['turns.0.turnId', { turnId: 'has space' }],
      ['turns.0.turnId', { turnId: 'x'.repeat(129) }],
      ['turns.0.speaker', { speaker: null }],
      ['turns.0.speaker', { speaker: 's'.repeat(129) }],
      ['turns.0.channel', { channel: 'Web App' }],
      ['turns.0.occurredAt', { occurredAt: '2026-11-30T08:00:00' }],
      ['turns.0.occurredAt', { occurredAt: '2026-02-30T08:00:00Z' }],
    ];
    for (const [field, change] of bad) {
      const turn = { ...good, ...change };
      const http = await engram
        .http()
        .post('/v1/turns')
        .send({ userId: 'v', sessionId: 's', turns: [turn] });
      let sdk: unknown;
      try {
        turnRecordedEvents({ tenantId: DEFAULT_TENANT, userId: 'v', sessionId: 's', turns: [turn as never], recordedAt: clock.now() });
      } catch (error) {
        sdk = error;
      }
      expect({ field, http: http.status, httpFields: http.body.fields }).toEqual({ field, http: 400, httpFields: [field] });
      expect(sdk).toBeInstanceOf(TurnValidationError);
      expect({ field, sdkFields: (sdk as TurnValidationError).fields }).toEqual({ field, sdkFields: [field] });
    }
    for (const [field, request] of [
      ['userId', { userId: '', sessionId: 's' }],
      ['sessionId', { userId: 'v', sessionId: 'a\tb' }],
    ] as const) {
      const http = await engram
        .http()
        .post('/v1/turns')
        .send({ ...request, turns: [good] });
      expect({ field, status: http.status, fields: http.body.fields }).toEqual({ field, status: 400, fields: [field] });
      expect(() => turnRecordedEvents({ tenantId: DEFAULT_TENANT, ...request, turns: [good as never], recordedAt: clock.now() })).toThrow(
        expect.objectContaining({ fields: [field] }),
      );
    }
  });
});
