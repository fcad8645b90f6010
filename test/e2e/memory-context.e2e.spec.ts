import { loadConfig } from '@engram/config';
import { summaryLines, summaryMergeKey } from '@engram/domain';
import { FactStore, FactStoreVersions, ProjectionVersions } from '@engram/ports';
import { DEFAULT_TENANT, Reprocessor, startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, rebuildOffline, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * Issue 11 §3 (procedural memory) and §4 (budget zones, the per-memory length cap, session
 * summaries and the carry-over into a new session), from the user's side: turns in over HTTP,
 * recall out, in Chinese and in English.
 */
interface Item {
  id: string;
  kind: string;
  content: string;
  value?: string;
  version?: number;
}
interface Recalled {
  facts: Item[];
  procedures: Item[];
  memories: Item[];
  recent: { turnId: string; sessionId: string; text: string }[];
  summary: { sessionId: string; previous: boolean; lines: string[] } | null;
  context: string;
  tokens: number;
}

describe('context: procedures, budget zones, length cap, summaries (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let turnNo = 0;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock, env: { ENGRAM_RECENT_TURNS: '4' } });
  });
  afterEach(async () => engram.destroy());

  /** Posts turns (one per text, a minute apart, alternating user/assistant when asked) and returns the position. */
  async function say(userId: string, texts: string[], sessionId = 's1', roles: 'user' | 'alternate' = 'user'): Promise<string> {
    const turns = texts.map((text, i) => {
      turnNo += 1;
      const role: 'user' | 'assistant' = roles === 'alternate' && i % 2 === 1 ? 'assistant' : 'user';
      return { turnId: `t${turnNo}`, role, text, occurredAt: new Date(clock.now().getTime() - 3_600_000 + turnNo * 60_000).toISOString() };
    });
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    return response.body.position as string;
  }

  async function recall(body: Record<string, unknown>): Promise<Recalled> {
    return (await engram.http().post('/v1/recall').send(body).expect(200)).body as Recalled;
  }

  const section = (context: string, name: string): string => {
    const match = new RegExp(`<${name}>\\n([\\s\\S]*?)\\n</${name}>`).exec(context);
    return match ? match[1] : '';
  };

  describe('§3 procedures', () => {
    it('injects the rules for the assistant in their own section whatever the question, and a later rule on the same topic replaces the earlier one (Chinese)', async () => {
      await say('lin', ['以后报价先给区间再给明细', '别用表情包', '代码示例用 TypeScript', '我喜欢喝咖啡']);
      const after = await say('lin', ['以后代码示例改成 Python']);
      const answer = await recall({ userId: 'lin', query: '周末去哪里玩', after });
      expect(answer.procedures.map((p) => p.content).sort()).toEqual(
        ['以后代码示例改成 Python', '以后报价先给区间再给明细', '别用表情包'].sort(),
      );
      expect(answer.procedures.every((p) => p.kind === 'procedure')).toBe(true);
      expect(answer.procedures.find((p) => p.content.includes('Python'))?.version).toBe(2);
      const rules = section(answer.context, 'procedures');
      expect(rules).toContain('以后报价先给区间再给明细');
      expect(rules).not.toContain('TypeScript');
      // Not ranked against the query: an unrelated question brings every rule, and none among the memories.
      expect(answer.memories.some((m) => /报价|表情包|代码示例/.test(m.content))).toBe(false);
      expect(answer.facts.some((f) => f.kind === 'procedure')).toBe(false);

      const stored = (await engram.http().get('/v1/users/lin/memories?status=all').expect(200)).body.memories as {
        kind: string;
        attribute: string;
        value: string;
        history: { value: string }[];
      }[];
      const code = stored.find((m) => m.kind === 'procedure' && m.attribute === 'procedure:code_examples')!;
      expect(code.value).toBe('以后代码示例改成 Python');
      expect(code.history.map((h) => h.value)).toEqual(['代码示例用 TypeScript']);
      // "以后代码示例改成 Python" set a rule, not the user's programming language.
      expect(stored.some((m) => m.attribute === 'language')).toBe(false);
    });

    it('injects the rules for the assistant in their own section whatever the question, and a later rule on the same topic replaces the earlier one (English)', async () => {
      await say('sam', ['Always answer in English.', 'Never use emojis.', 'Use TypeScript for code examples', 'I love hiking on weekends']);
      const after = await say('sam', ['从现在开始都用中文回答我']);
      const answer = await recall({ userId: 'sam', query: 'where should I go hiking', after });
      expect(answer.procedures.map((p) => p.content).sort()).toEqual(
        ['Never use emojis', 'Use TypeScript for code examples', '从现在开始都用中文回答我'].sort(),
      );
      expect(section(answer.context, 'procedures')).not.toContain('Always answer in English');
      // The query still ranks memories as before: the hiking preference is found.
      expect(answer.memories.some((m) => m.content.includes('hiking'))).toBe(true);
      expect(answer.context.indexOf('<procedures>')).toBeLessThan(answer.context.indexOf('<memories>'));
    });

    it("leaves one-off instructions and the user's own habits out of the procedures (Chinese and English)", async () => {
      const after = await say('kim', [
        '这个问题用英文回答',
        '我不用表情包',
        'Answer this question in English',
        'I always answer emails in the morning',
      ]);
      const answer = await recall({ userId: 'kim', query: 'emails', after });
      expect(answer.procedures).toEqual([]);
      expect(answer.context).not.toContain('<procedures>');
    });
  });

  describe('§4 budget zones and the length cap', () => {
    const recentTexts = (n: number, zh: boolean) =>
      Array.from({ length: n }, (_, i) =>
        zh
          ? `第${i}轮：我们在讨论迁移数据库的方案，还有一些细节要确认`
          : `Turn ${i}: we are discussing the database migration plan and a few details`,
      );

    it("keeps room for the recent turns when memories could fill the whole budget, and hands a zone's unused tokens on (Chinese)", async () => {
      const steps = [
        '先做全量备份',
        '再做增量同步',
        '校验两边的行数',
        '灰度切换读流量',
        '切换写流量',
        '保留旧库一周',
        '压测新集群',
        '准备回滚脚本',
        '通知下游团队',
        '更新监控告警',
        '整理迁移文档',
        '复盘迁移问题',
      ];
      const facts = steps.map((step, i) => `数据库迁移方案的第${i + 1}步是${step}，这一步由${['老王', '小李', '阿芳', '大刘'][i % 4]}负责`);
      await say('zhou', facts, 'old');
      const after = await say('zhou', recentTexts(4, true), 's1');
      const budget = { total: 400, memories: 200, recent: 150, facts: 0, procedures: 0, summary: 0 };
      const zoned = await recall({ userId: 'zhou', query: '数据库迁移方案', sessionId: 's1', k: 12, budget, after });
      expect(zoned.tokens).toBeLessThanOrEqual(400);
      expect(zoned.recent.length).toBeGreaterThan(0);
      expect(zoned.memories.length).toBeGreaterThan(0);
      // Without a recent zone's worth of turns (no session), the memories take those tokens.
      const alone = await recall({ userId: 'zhou', query: '数据库迁移方案', k: 12, budget });
      expect(alone.recent).toEqual([]);
      expect(alone.memories.length).toBeGreaterThan(zoned.memories.length);
    });

    it("keeps room for the recent turns when memories could fill the whole budget, and hands a zone's unused tokens on (English)", async () => {
      const facts = Array.from(
        { length: 12 },
        (_, i) => `Our migration plan step ${i}: back up the database in full, then sync increments, then switch traffic`,
      );
      await say('ana', facts, 'old');
      const after = await say('ana', recentTexts(4, false), 's1');
      // The old session's summary is carried into s1 (a new session) and has a zone of its own too.
      const budget = { total: 400, memories: 150, summary: 80, recent: 150 };
      const zoned = await recall({ userId: 'ana', query: 'database migration plan', sessionId: 's1', k: 12, budget, after });
      expect(zoned.tokens).toBeLessThanOrEqual(400);
      expect(zoned.recent.length).toBeGreaterThan(0);
      expect(zoned.summary?.previous).toBe(true);
      expect(zoned.summary!.lines.length).toBeGreaterThan(0);
      const alone = await recall({ userId: 'ana', query: 'database migration plan', k: 12, budget });
      expect(alone.memories.length).toBeGreaterThan(zoned.memories.length);
    });

    it('refuses a bad budget with a 400 naming the field', async () => {
      const response = await engram
        .http()
        .post('/v1/recall')
        .send({ userId: 'u', query: 'x', budget: { total: 10, recent: -1 } })
        .expect(400);
      expect(response.body.fields).toEqual(expect.arrayContaining(['budget.total', 'budget.recent']));
      const notObject = await engram.http().post('/v1/recall').send({ userId: 'u', query: 'x', budget: 500 }).expect(400);
      expect(notObject.body.fields).toEqual(expect.arrayContaining(['budget']));
    });

    it("cuts a long episode around the question's terms instead of dropping it (English)", async () => {
      const filler = 'We talked about many unrelated things that day, the weather, the traffic and a film we saw. ';
      const long = `${filler.repeat(8)}The hotel we booked in Lisbon is the Memmo Alfama, right next to the castle. ${filler.repeat(8)}`;
      const after = await say('eve', [long]);
      const answer = await recall({ userId: 'eve', query: 'which hotel did we book in Lisbon', after });
      expect(answer.memories).toHaveLength(1);
      expect(answer.memories[0].content).toBe(long.trim()); // the memory itself is whole
      const line = section(answer.context, 'memories');
      expect(line).toContain('The hotel we booked in Lisbon is the Memmo Alfama');
      expect(line.length).toBeLessThan(long.length / 2);
      expect(line).toContain('…');
    });

    it("cuts a long episode around the question's terms instead of dropping it (Chinese)", async () => {
      const filler = '那天我们聊了很多不相关的事情，天气、路况，还有周末看的电影。';
      const long = `${filler.repeat(12)}我们在里斯本订的酒店是阿尔法玛酒店，就在城堡旁边。${filler.repeat(12)}`;
      const after = await say('fang', [long]);
      const answer = await recall({ userId: 'fang', query: '我们在里斯本订的哪家酒店', after });
      expect(answer.memories).toHaveLength(1);
      const line = section(answer.context, 'memories');
      expect(line).toContain('里斯本订的酒店是阿尔法玛酒店');
      expect(line.length).toBeLessThanOrEqual(420);
    });
  });
  describe('§4 session summaries and the carry-over into a new session', () => {
    // ENGRAM_RECENT_TURNS 4 and the default ENGRAM_SUMMARY_EVERY 4: a summary once 4 turns have left the window.
    const friday = (zh: boolean) =>
      zh
        ? [
            '我们在做订单服务的数据库迁移',
            '决定用 PostgreSQL 替换 MySQL',
            '第一步是全量备份',
            '然后做增量同步',
            '迁移脚本用 Python 写',
            '周五先在测试环境演练',
            '演练通过以后再切生产流量',
            '切换窗口定在周日凌晨两点',
            '回滚方案是保留旧库一周',
          ]
        : [
            'We are migrating the order service database',
            'We decided to replace MySQL with PostgreSQL',
            'The first step is a full backup',
            'Then we run incremental sync',
            'The migration scripts are written in Python',
            'We rehearse in staging on Friday',
            'After the rehearsal we switch production traffic',
            'The cutover window is Sunday at 2am',
            'The rollback plan keeps the old database for a week',
          ];

    for (const zh of [true, false]) {
      const lang = zh ? 'Chinese' : 'English';
      const user = zh ? 'laozhou' : 'alex';

      it(`summarises the turns that left the recent window, in order, and shows only the turns after it (${lang})`, async () => {
        const after = await say(user, friday(zh), 'fri');
        const answer = await recall({ userId: user, query: zh ? '切换窗口' : 'cutover window', sessionId: 'fri', after });
        expect(answer.summary).toMatchObject({ sessionId: 'fri', previous: false });
        const lines = answer.summary!.lines.join('\n');
        expect(lines).toContain(zh ? '订单服务的数据库迁移' : 'migrating the order service database');
        expect(lines).toContain('PostgreSQL');
        expect(lines.indexOf(zh ? '数据库迁移' : 'migrating')).toBeLessThan(lines.indexOf(zh ? '全量备份' : 'full backup'));
        // The summary and the recent turns do not overlap, and together they hold the whole session.
        const shown = [...answer.summary!.lines, ...answer.recent.map((t) => t.text)].join('\n');
        for (const text of friday(zh)) expect(shown).toContain(text.slice(0, 8));
        expect(answer.recent.some((t) => answer.summary!.lines.some((l) => l.includes(t.text)))).toBe(false);
        expect(answer.context.indexOf('<summary>')).toBeGreaterThan(-1);
        expect(answer.context.indexOf('<summary>')).toBeLessThan(answer.context.indexOf('<recent>'));
      });

      it(`starts a new session with the previous session's summary and last turns (${lang})`, async () => {
        await say(user, friday(zh), 'fri');
        clock.advanceDays(3);
        const question = zh ? '我们上次做到哪了？' : 'what were we doing last time?';
        const after = await say(user, [question], 'mon');
        const answer = await recall({ userId: user, query: question, sessionId: 'mon', after });
        expect(answer.summary).toMatchObject({ sessionId: 'fri', previous: true });
        expect(answer.summary!.lines.join('\n')).toContain('PostgreSQL');
        expect(answer.recent.map((t) => t.sessionId)).toContain('fri');
        expect(answer.recent[answer.recent.length - 1]).toMatchObject({ sessionId: 'mon', text: question });
        expect(answer.recent.some((t) => t.text === friday(zh)[8])).toBe(true); // Friday's last turn
        expect(answer.context).toContain(friday(zh)[8]);
      });
    }

    it("keeps another user's sessions out of a new session", async () => {
      await say('laozhou', friday(true), 'fri');
      const after = await say('someone-else', ['hello, what were we doing?'], 'mon');
      const answer = await recall({ userId: 'someone-else', query: 'what were we doing', sessionId: 'mon', after });
      expect(answer.summary).toBeNull();
      expect(answer.recent.map((t) => t.sessionId)).toEqual(['mon']);
    });

    it('re-derives the summaries when the turns are reprocessed: the same summary from the reprocessed version', async () => {
      const after = await say('laozhou', friday(true), 'fri');
      const before = await recall({ userId: 'laozhou', query: '切换窗口', sessionId: 'fri', after });
      const maintenance = await startApp(
        EngramModule.forMaintenance({
          config: loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: engram.dataDir, ENGRAM_RECENT_TURNS: '4' }),
        }),
        { http: false, stages: false },
      );
      try {
        const built = await maintenance.get(Reprocessor).run({ from: 'beginning', extractorVersion: 'rules-10' });
        const store = await maintenance.get<ProjectionVersions<FactStore>>(FactStoreVersions).open(built.factsVersion);
        const [summary] = await store.findByMergeKeys(DEFAULT_TENANT, 'laozhou', [summaryMergeKey('fri')]);
        expect(summary.kind).toBe('summary');
        expect(summaryLines(summary)).toEqual(before.summary!.lines);
      } finally {
        await maintenance.close();
      }
    });

    it('rebuilds the summaries by replaying the log: the same summary after an offline rebuild', async () => {
      const after = await say('alex', friday(false), 'fri');
      const before = await recall({ userId: 'alex', query: 'cutover window', sessionId: 'fri', after });
      await engram.stop();
      expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);
      engram = await startEngram({ clock, dataDir: engram.dataDir, env: { ENGRAM_RECENT_TURNS: '4' } });
      const rebuilt = await recall({ userId: 'alex', query: 'cutover window', sessionId: 'fri' });
      expect(rebuilt.summary).toEqual(before.summary);
      expect(rebuilt.recent).toEqual(before.recent);
    });
  });
});
