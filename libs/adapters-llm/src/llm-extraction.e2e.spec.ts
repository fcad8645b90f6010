import { EngramHarness, startEngram, TestClock, turnsBody } from '../../../test/support/engram-harness';
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

  /*
   * Issue 30, "what is true now", with the model: the user's sessions days apart, small talk between,
   * the model's (hand-authored) answers to prompts 5 and 6 decided by the real resolver, read back over HTTP.
   */
  describe('what is true now, read by the model (prompts 5 and 6)', () => {
    const DAY = 86_400_000;
    let clock: TestClock;
    let turnNo = 0;

    interface Stored {
      kind: string;
      subject: string;
      attribute: string;
      value: string;
      content: string;
      status: string;
      pinned: boolean;
      sensitive?: boolean;
      expiresAt?: string;
      history: { value: string; content: string }[];
      conflict?: { previousVersion: number };
    }

    async function start(env: Record<string, string> = {}): Promise<void> {
      clock = new TestClock(new Date('2026-11-02T09:00:00Z'));
      engram = await startEngram({
        clock,
        env: { ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: stubUrl, ENGRAM_LLM_MODEL: 'gpt-4o-mini', ENGRAM_LLM_RETRIES: '0', ...env },
      });
    }

    /** The user says `texts` in `sessionId` at the clock's time, then the clock moves on `days`. */
    async function say(userId: string, sessionId: string, texts: string[], days = 0): Promise<string> {
      const turns = texts.map((text, index) => {
        turnNo += 1;
        return { turnId: `t${turnNo}`, text, occurredAt: new Date(clock.now().getTime() + index * 60_000).toISOString() };
      });
      const response = await engram!
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, sessionId, turns))
        .expect(202);
      clock.set(new Date(clock.now().getTime() + days * DAY));
      return response.body.position as string;
    }

    const smallTalk = (userId: string, sessionId: string, days: number) =>
      say(userId, sessionId, ['帮我查一下明天的天气', 'ok thanks'], days);

    async function recalled(
      userId: string,
      query: string,
      after: string,
    ): Promise<{ facts: string[]; memories: string[]; context: string }> {
      const body = (await engram!.http().post('/v1/recall').send({ userId, query, after, sessionId: 'now' }).expect(200)).body;
      const contents = (list: { content: string }[]) => list.map((m) => m.content);
      return { facts: contents(body.facts), memories: contents(body.memories), context: body.context };
    }

    async function stored(userId: string, status = 'active'): Promise<Stored[]> {
      const all = (await engram!.http().get(`/v1/users/${userId}/memories?status=${status}`).expect(200)).body.memories as Stored[];
      return all.filter((m) => m.kind !== 'episode');
    }

    const asked = (text: string) => stub.requests.some((r) => r.body.messages.some((m) => m.role === 'user' && m.content.includes(text)));

    it.each([
      ['Chinese', FIXTURE_TURNS.constraintsZh.text, '周末带孩子出去吃什么好', ['花生', '吃素', '高血压', '香菜', '轮椅']],
      [
        'English',
        FIXTURE_TURNS.constraintsEn.text,
        'Where should we eat out with the kids this weekend?',
        ['peanuts', 'vegetarian', 'asthma', 'cilantro', 'wheelchair'],
      ],
    ])(
      '(a) constraints said once (%s) reach an unrelated prompt a week later, pinned; health data marked sensitive',
      async (_, text, query, words) => {
        await start();
        await say('mei', 's1', [text], 3);
        await smallTalk('mei', 's2', 4);
        const after = await smallTalk('mei', 's3', 1);
        expect(asked(text)).toBe(true);
        const { facts, context } = await recalled('mei', query, after);
        for (const word of words) {
          expect(facts.join('\n')).toContain(word);
          expect(context).toContain(word);
        }
        const memories = await stored('mei');
        expect(memories.map((m) => [m.attribute.split(':')[0], m.subject, m.pinned, m.sensitive ?? false]).sort()).toEqual([
          ['accessibility', 'mother', true, false],
          ['allergy', 'daughter', true, true],
          ['diet', 'wife', true, false],
          ['health', 'user', true, true],
          ['preference', 'user', true, false],
        ]);
      },
    );

    it.each([
      ['Chinese', FIXTURE_TURNS.scopeZh.text, 'report_template', 'procedure:course_recommendations', 'whereabouts', 'preference:咖啡'],
      ['English', FIXTURE_TURNS.scopeEn.text, 'task_database', 'packing', 'whereabouts', 'diet:vegan'],
    ])(
      '(b) what the model scoped (%s) expires with its scope, the working-memory window set by ENGRAM_WORKING_MEMORY_MINUTES; "from today on" stays',
      async (_, text, task, long, place, lasting) => {
        await start({ ENGRAM_WORKING_MEMORY_MINUTES: '30' });
        const said = clock.now().getTime();
        const after = await say('ana', 's1', [text]);
        await recalled('ana', 'hello', after);
        const byAttribute = new Map((await stored('ana')).map((m) => [m.attribute, m]));
        expect(byAttribute.get(task)!.expiresAt).toBe(new Date(said + 30 * 60_000).toISOString());
        expect(byAttribute.get(place)!.expiresAt).toBeDefined();
        expect(byAttribute.get(lasting)!.expiresAt).toBeUndefined();

        const forget = async (days: number) => {
          clock.set(new Date(said + days * DAY));
          await engram!.http().post('/v1/forgetting/run').send({}).expect(200);
          return (await stored('ana')).map((m) => m.attribute).sort();
        };
        // A day on: the task's choice is gone; a week and a trip outlast three days; what starts today stays.
        expect(await forget(1)).toEqual([long, place, lasting].sort());
        expect(await forget(15)).toEqual([lasting]);
        // The turn also said something lasting: its episode stays.
        const episodes = (await engram!.http().get('/v1/users/ana/memories').expect(200)).body.memories.filter(
          (m: Stored) => m.kind === 'episode',
        );
        expect(episodes).toHaveLength(1);
      },
    );

    it.each([
      ['Chinese', FIXTURE_TURNS.favouriteHabitZh.text, FIXTURE_TURNS.likingZh.text, 'preference:乌龙茶'],
      ['English', FIXTURE_TURNS.favouriteEn.text, FIXTURE_TURNS.likingEn.text, 'preference:window-seats'],
    ])('(c) a favourite and, days later, the liking said in other words (%s) are one memory', async (_, first, second, attribute) => {
      await start();
      await say('bo', 's1', [first], 3);
      const after = await say('bo', 's2', [second]);
      await recalled('bo', 'hello', after);
      const likings = (await stored('bo')).filter((m) => m.attribute.startsWith('preference:'));
      expect(likings.map((m) => [m.attribute, m.value, m.history.length])).toEqual([[attribute, 'like', 0]]);
    });

    it.each([
      [
        'Chinese',
        FIXTURE_TURNS.changeZhBefore.text,
        FIXTURE_TURNS.changeZh.text,
        ['我现在在哪家公司', '我住在哪个城市'],
        ['字节跳动', '上海'],
        ['阿里巴巴', '杭州'],
      ],
      [
        'English',
        FIXTURE_TURNS.changeEnBefore.text,
        FIXTURE_TURNS.changeEn.text,
        ['Which company do I work for?', 'Which city do I live in?'],
        ['Google', 'Lisbon'],
        ['Stripe', 'Porto'],
      ],
    ])(
      '(d) a new job and city said in a later session (%s) replace the old ones, which stay in the history',
      async (_, before, change, queries, now, old) => {
        await start();
        await say('zhou', 's1', [before], 5);
        await smallTalk('zhou', 's2', 3);
        const after = await say('zhou', 's3', [change]);
        // Each fact is found by its attribute's words ("公司", "city"), which the new value's words lack.
        for (const [index, query] of queries.entries()) {
          const answer = await recalled('zhou', query, after);
          const shown = [...answer.facts, ...answer.memories].join('\n');
          expect(shown).toContain(now[index]);
          for (const word of old) expect(shown).not.toContain(word);
        }
        const facts = (await stored('zhou')).filter((m) => m.attribute === 'employer' || m.attribute === 'location');
        expect(facts.map((m) => [m.attribute, m.value, m.history.map((h) => h.value)]).sort()).toEqual([
          ['employer', now[0], [old[0]]],
          ['location', now[1], [old[1]]],
        ]);
      },
    );

    it.each([
      ['Chinese', FIXTURE_TURNS.planZhBefore.text, FIXTURE_TURNS.planZh.text, '给我推荐一个饮食方案', '低卡', '高热量'],
      ['English', FIXTURE_TURNS.planEnBefore.text, FIXTURE_TURNS.planEn.text, 'Suggest a meal plan for me', 'low-calorie', 'high-calorie'],
    ])('(d) a change of plan two days later, in a new session (%s), is what recall returns', async (_, before, change, query, now, old) => {
      await start();
      await say('lu', 'monday', [before], 2);
      const after = await say('lu', 'wednesday', [change]);
      const answer = await recalled('lu', query, after);
      expect(answer.memories[0]).toContain(now);
      expect([...answer.facts, ...answer.memories].join('\n')).not.toContain(old);
      expect((await stored('lu')).map((m) => [m.attribute, m.value, m.history.map((h) => h.value)])).toEqual([['meal_plan', now, [old]]]);
    });

    it.each([
      ['Chinese', FIXTURE_TURNS.contradictionZhBefore.text, FIXTURE_TURNS.contradictionZhDoctor.text, '我能用什么抗生素', 'allergy:青霉素'],
      [
        'English',
        FIXTURE_TURNS.contradictionEnBefore.text,
        FIXTURE_TURNS.contradictionEnActually.text,
        'Which antibiotics can I take?',
        'allergy:penicillin',
      ],
    ])(
      '(e) "I can take it" days after an allergy (%s) supersedes it, flagged as a contradiction; the allergy only as history',
      async (_, allergy, contradiction, query, attribute) => {
        await start();
        await say('yan', 's1', [allergy], 4);
        await smallTalk('yan', 's2', 2);
        const after = await say('yan', 's3', [contradiction]);
        const [memory] = await stored('yan', 'all');
        expect(await stored('yan', 'all')).toHaveLength(1);
        expect(memory).toMatchObject({ attribute, status: 'active', value: 'none', pinned: true, conflict: { previousVersion: 1 } });
        const answer = await recalled('yan', query, after);
        expect(answer.facts).toEqual([memory.content]);
        const lines = answer.context.split('\n');
        // The allergy's words are there only on the history line under the denial.
        const historyAt = lines.findIndex((line) => /^ {2}[（(](?:以前：|previously: )/u.test(line));
        expect(lines[historyAt - 1]).toContain(memory.content);
        expect(lines[historyAt]).toContain(memory.history[0].content);
        expect(lines.filter((line) => line.includes(memory.history[0].content))).toEqual([lines[historyAt]]);
      },
    );
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
