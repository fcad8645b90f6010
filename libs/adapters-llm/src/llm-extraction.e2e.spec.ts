import { EngramHarness, startEngram, turnsBody } from '../../../test/support/engram-harness';
import {
  ChatCompletionsStub,
  FIXTURE_TURNS,
  isSummaryRequest,
  noItems,
  replayFixtures,
  SUMMARY_FIXTURES,
  type Handler,
} from './testing/chat-completions-stub';

/*
 * ENGRAM_EXTRACTOR=llm end to end: the embedded server's extractor stage asks the (stubbed)
 * chat-completions endpoint, and what it answers is what recall returns. The stub serves
 * hand-authored fixtures (fixtures/README.md), not recordings.
 */
const fixturesOrNothing: Handler = (request, attempt) => {
  const answer = replayFixtures(request, attempt);
  return answer.status === 500 ? noItems : answer;
};

describe('LLM extraction (HTTP, ENGRAM_EXTRACTOR=llm)', () => {
  const stub = new ChatCompletionsStub();
  let stubUrl: string;
  let engram: EngramHarness | undefined;

  beforeAll(async () => {
    stubUrl = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => stub.reset(fixturesOrNothing));
  afterEach(async () => {
    await engram?.destroy();
    engram = undefined;
  });

  async function recall(userId: string, query: string, after: string): Promise<string[]> {
    const response = await engram!.http().post('/v1/recall').send({ userId, query, after }).expect(200);
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content);
  }

  it("extracts with the model: its items, in the user's language, are what recall returns", async () => {
    engram = await startEngram({ env: { ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: stubUrl, ENGRAM_LLM_MODEL: 'gpt-4o-mini' } });
    const ingested = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('lin', 's1', [{ turnId: 't1', text: FIXTURE_TURNS.zh.text }]))
      .expect(202);
    const after = ingested.body.position as string;

    const editor = await recall('lin', 'VS Code', after);
    expect(editor).toContain('用户喜欢用 VS Code 写 TypeScript。');
    const budget = await recall('lin', '预算', after);
    expect(budget).toContain('用户的预算控制在三万以内。');
    // The temporary state the model dropped is not a memory.
    expect([...editor, ...budget].some((c) => c.includes('累'))).toBe(false);

    const asked = stub.requests.filter((r) => r.body.messages.some((m) => m.content.includes(FIXTURE_TURNS.zh.text)));
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked[0].body.model).toBe('gpt-4o-mini');
    expect(asked[0].body.response_format?.type).toBe('json_schema');
  });

  for (const [language, before, correction, query, now, old] of [
    ['Chinese', FIXTURE_TURNS.correctionZhBefore.text, FIXTURE_TURNS.correctionZh.text, '服务器时间是几点', '9点', '8点'],
    ['English', FIXTURE_TURNS.correctionEnBefore.text, FIXTURE_TURNS.correctionEn.text, 'what time is the standup', '10', '9am'],
  ] as const) {
    it(`lands the model's open correction on the memory it answers (${language})`, async () => {
      engram = await startEngram({ env: { ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: stubUrl, ENGRAM_LLM_MODEL: 'gpt-4o-mini' } });
      await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody('ren', 's1', [{ turnId: 't1', text: before, occurredAt: '2026-11-30T08:00:00Z' }]))
        .expect(202);
      const ingested = await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody('ren', 's1', [{ turnId: 't2', text: correction, occurredAt: '2026-11-30T08:01:00Z' }]))
        .expect(202);
      const recalled = (await recall('ren', query, ingested.body.position)).join('\n');
      expect(recalled).toContain(now);
      expect(recalled).not.toContain(old);
      const stored = (await engram.http().get('/v1/users/ren/memories').expect(200)).body.memories.filter(
        (m: { kind: string }) => m.kind !== 'episode',
      );
      expect(stored.map((m: { value: string; history: { value: string }[] }) => [m.value, m.history.map((h) => h.value)])).toEqual([
        [now, [old]],
      ]);
    });
  }

  it('injects the procedures the model read in their own section, a later rule on the same topic replacing the earlier one', async () => {
    engram = await startEngram({ env: { ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: stubUrl, ENGRAM_LLM_MODEL: 'gpt-4o-mini' } });
    const first = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('mei', 's1', [{ turnId: 't1', text: FIXTURE_TURNS.procedureEn.text }]))
      .expect(202);
    let answer = await engram
      .http()
      .post('/v1/recall')
      .send({ userId: 'mei', query: 'what is the weather like', after: first.body.position })
      .expect(200);
    expect(answer.body.procedures.map((p: { content: string }) => p.content).sort()).toEqual([
      'The user wants code examples written in TypeScript.',
      'The user wants every answer in English.',
    ]);

    const second = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('mei', 's1', [{ turnId: 't2', text: FIXTURE_TURNS.procedureZh.text, occurredAt: '2026-11-30T10:00:00.000Z' }]))
      .expect(202);
    answer = await engram.http().post('/v1/recall').send({ userId: 'mei', query: '今天吃什么', after: second.body.position }).expect(200);
    const rules = answer.body.procedures.map((p: { content: string }) => p.content).sort();
    expect(rules).toEqual(
      [
        'The user wants code examples written in TypeScript.',
        '用户要求回复里不要用表情包。',
        '用户要求以后都用中文回答。',
        '用户要求报价时先给价格区间，再给明细。',
      ].sort(),
    );
    expect(answer.body.context).toContain('<procedures>');
    expect(answer.body.context).not.toContain('every answer in English');
  });

  describe('session summaries written by the model', () => {
    const env = (url: string) => ({
      ENGRAM_EXTRACTOR: 'llm',
      ENGRAM_LLM_URL: url,
      ENGRAM_LLM_MODEL: 'gpt-4o-mini',
      ENGRAM_LLM_RETRIES: '0',
      ENGRAM_RECENT_TURNS: '2',
      ENGRAM_SUMMARY_EVERY: '2',
    });
    const session = (zh: boolean) =>
      zh
        ? ['我们在做订单服务的数据库迁移', '决定用 PostgreSQL 替换 MySQL', '第一步是全量备份', '然后做增量同步']
        : [
            'We are migrating the order service database',
            'We decided to replace MySQL with PostgreSQL',
            'The first step is a full backup',
            'Then we run incremental sync',
          ];

    async function summaryAfter(
      userId: string,
      zh: boolean,
    ): Promise<{ summary: { lines: string[] } | null; recent: { text: string }[]; memories: unknown[] }> {
      const turns = session(zh).map((text, i) => ({ turnId: `t${i + 1}`, text, occurredAt: `2026-11-30T08:0${i + 1}:00.000Z` }));
      const ingested = await engram!
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, 'fri', turns))
        .expect(202);
      const query = zh ? '数据库迁移' : 'database migration';
      return (await engram!.http().post('/v1/recall').send({ userId, query, sessionId: 'fri', after: ingested.body.position }).expect(200))
        .body;
    }

    it.each([
      ['Chinese', true, '用户在做订单服务的数据库迁移，决定用 PostgreSQL 替换 MySQL。'],
      ['English', false, 'The user is migrating the order service database and decided to replace MySQL with PostgreSQL.'],
    ])("uses the model's summary of the turns that left the window (%s)", async (_, zh, expected) => {
      stub.reset((request, attempt) =>
        isSummaryRequest(request.body) ? { body: zh ? SUMMARY_FIXTURES.zh : SUMMARY_FIXTURES.en } : fixturesOrNothing(request, attempt),
      );
      engram = await startEngram({ env: env(stubUrl) });
      const answer = await summaryAfter(zh ? 'lin' : 'sam', zh);
      expect(answer.summary!.lines).toEqual([`[11-30 08:01] ${expected}`]);
      expect(answer.recent.map((t) => t.text)).toEqual(session(zh).slice(2));
      const asked = stub.requests.filter((r) => isSummaryRequest(r.body));
      expect(asked).toHaveLength(1);
      expect(asked[0].body.messages[1].content).toContain(session(zh)[1]);
      expect(asked[0].body.messages[1].content).not.toContain(session(zh)[3]); // still in the recent window
    });

    it('falls back to the extractive summary when the model fails, and the memories are decided all the same', async () => {
      stub.reset((request, attempt) =>
        isSummaryRequest(request.body) ? { status: 500, body: { error: { message: 'overloaded' } } } : fixturesOrNothing(request, attempt),
      );
      engram = await startEngram({ env: env(stubUrl) });
      const answer = await summaryAfter('kim', false);
      expect(answer.summary!.lines.join('\n')).toContain('We are migrating the order service database');
      expect(answer.memories.length).toBeGreaterThan(0);
    });
  });

  it('keeps the rule extractor by default and never calls the endpoint', async () => {
    engram = await startEngram({ env: { ENGRAM_LLM_URL: stubUrl } });
    const ingested = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('sam', 's1', [{ turnId: 't1', text: 'I prefer VS Code for TypeScript work' }]))
      .expect(202);
    expect((await recall('sam', 'VS Code', ingested.body.position)).some((c) => c.includes('VS Code'))).toBe(true);
    expect(stub.requests).toHaveLength(0);
  });

  it('refuses ENGRAM_EXTRACTOR=llm without ENGRAM_LLM_URL at start-up, naming the variable', async () => {
    await expect(startEngram({ env: { ENGRAM_EXTRACTOR: 'llm' } })).rejects.toThrow(/ENGRAM_LLM_URL: required when ENGRAM_EXTRACTOR=llm/);
  });
});
