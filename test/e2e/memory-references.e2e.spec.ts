import { DaysApart, type Said } from '../support/days-apart';
import { EngramHarness, startEngram, TestClock } from '../support/engram-harness';

/**
 * Issue 30, "vague references fail once another session intervenes": its three reproductions, in
 * Chinese and in English, through the HTTP API of an embedded engram, with the plan, the
 * recommendation or the remembered item said days before the question and other sessions in
 * between. A reference ("上次说的", "the plan we discussed", "我之前让你记的") is answered by the latest
 * matching decision, plan, recommendation or remembered item; "后来怎么样了" / "how did it go" by what
 * followed it, and the plan itself.
 */
interface Recalled {
  memories: { kind: string; content: string; sourceTurnIds: string[] }[];
  context: string;
}

describe('references resolved across sessions (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let talk: DaysApart;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-02T09:00:00Z'));
    engram = await startEngram({ clock });
    talk = new DaysApart(engram, clock);
  });
  afterEach(async () => engram.destroy());

  const say = (userId: string, sessionId: string, said: Said[], days = 0) => talk.session(userId, sessionId, said, days);

  /** Small talk in a session of its own, as real chat logs have between the sessions that matter. */
  async function smallTalk(userId: string, sessionId: string, days: number, zh: boolean): Promise<string> {
    const talk: Said[] = zh
      ? ['帮我查一下明天的天气', { role: 'assistant', text: '明天多云，18 到 24 度。' }]
      : ["What's the weather tomorrow?", { role: 'assistant', text: 'Cloudy, around 12°C.' }];
    return (await say(userId, sessionId, talk, days)).position;
  }

  const recall = (userId: string, query: string, after: string, sessionId: string) =>
    talk.recall<Recalled>({ userId, query, after, sessionId });

  /** Where `text` first appears in the context, Infinity when it does not. */
  const at = (context: string, text: string) => (context.includes(text) ? context.indexOf(text) : Infinity);

  describe('"就按上次说的办吧": the latest plan, whichever session said it', () => {
    it('zh: two plans sessions apart, small talk and a chat after the second; the second plan comes first', async () => {
      await say('fang', 's1', ['团建你觉得去哪好？', { role: 'assistant', text: '建议去莫干山，两天一夜。' }, '好，就这么定了'], 4);
      const plan = await say(
        'fang',
        's2',
        [
          '数据库迁移你觉得该怎么分步做？',
          { role: 'assistant', text: '建议方案：第一步先迁移只读的报表库，第二步迁订单库，第三步切换写流量。' },
          '好，就按这个方案来',
        ],
        3,
      );
      await smallTalk('fang', 's3', 2, true);
      const after = (await say('fang', 's4', ['今天有点累，中午吃了碗面'], 1)).position;

      const answer = await recall('fang', '就按上次说的办吧', after, 's5');
      expect(plan.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      expect(answer.memories[0].content).toContain('报表库');
      expect(at(answer.context, '报表库')).toBeLessThan(at(answer.context, '莫干山'));
    });

    it('en: two plans sessions apart, small talk and a chat after the second; the second plan comes first', async () => {
      await say(
        'fern',
        's1',
        [
          'Where should we hold the team offsite?',
          { role: 'assistant', text: 'I would suggest Lake Tahoe, two nights.' },
          "OK, let's go with that.",
        ],
        4,
      );
      const plan = await say(
        'fern',
        's2',
        [
          'How should we roll out the database migration?',
          {
            role: 'assistant',
            text: "Here's the plan: first migrate the read-only reporting database, then the orders database, then switch the write traffic.",
          },
          "OK, let's go with that plan.",
        ],
        3,
      );
      await smallTalk('fern', 's3', 2, false);
      const after = (await say('fern', 's4', ["I'm a bit tired today, had noodles for lunch."], 1)).position;

      const answer = await recall('fern', "Let's do what we said last time.", after, 's5');
      expect(plan.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      expect(answer.memories[0].content).toContain('reporting database');
      expect(at(answer.context, 'reporting database')).toBeLessThan(at(answer.context, 'Lake Tahoe'));
    });
  });

  describe('"那个方案后来怎么样了": what became of the plan, and the plan', () => {
    it('zh: the decision, a week of other sessions, then how it went; asked days later', async () => {
      await say('qiu', 's1', ['我们决定用Postgres做新的计费服务'], 3);
      await smallTalk('qiu', 's2', 3, true);
      const outcome = await say('qiu', 's3', ['Postgres迁移昨天上线了，很顺利，没出问题'], 2);
      await say('qiu', 's4', ['我新买了一个机械键盘', '把“会议纪要”翻译成英文', { role: 'assistant', text: 'Meeting minutes.' }], 1);
      const after = await smallTalk('qiu', 's5', 2, true);

      const answer = await recall('qiu', '那个方案后来怎么样了', after, 's6');
      expect(outcome.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      const contents = answer.memories.map((m) => m.content).join('\n');
      expect(contents).toContain('决定用Postgres');
      expect(at(answer.context, '上线了')).toBeLessThan(at(answer.context, '决定用Postgres'));
      // A later sentence sharing a common word with the plan is not what became of it.
      expect(at(answer.context, '机械键盘')).toBeGreaterThan(at(answer.context, '决定用Postgres'));
    });

    it('en: the decision, a week of other sessions, then how it went; asked days later', async () => {
      await say('quinn', 's1', ['We decided to go with Postgres for the new billing service.'], 3);
      await smallTalk('quinn', 's2', 3, false);
      const outcome = await say('quinn', 's3', ['The Postgres migration went live yesterday without any issues.'], 2);
      await say(
        'quinn',
        's4',
        ['I bought a new keyboard.', 'Translate "good morning" into Spanish', { role: 'assistant', text: 'Buenos días.' }],
        1,
      );
      const after = await smallTalk('quinn', 's5', 2, false);

      const answer = await recall('quinn', 'How did that plan go?', after, 's6');
      expect(outcome.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      const contents = answer.memories.map((m) => m.content).join('\n');
      expect(contents).toContain('decided to go with Postgres');
      expect(at(answer.context, 'went live')).toBeLessThan(at(answer.context, 'decided to go with Postgres'));
      // A later sentence sharing a common word with the plan is not what became of it.
      expect(at(answer.context, 'keyboard')).toBeGreaterThan(at(answer.context, 'decided to go with Postgres'));
    });
  });

  describe('"我之前让你记的那个配置项是什么": the item the user asked to remember', () => {
    it('zh: a remembered setting, then other sessions about configuration; the remembered one comes first', async () => {
      const noted = await say('rui', 's1', ['帮我记一下：订单服务的超时配置项是 order.timeout=30s'], 2);
      await say('rui', 's2', ['Apollo 里的配置项太多了，我老是记不清哪个配置项是干什么的'], 3);
      await smallTalk('rui', 's3', 1, true);
      const after = (await say('rui', 's4', ['配置文件的格式我一般用 YAML'], 2)).position;

      const answer = await recall('rui', '我之前让你记的那个配置项是什么', after, 's5');
      expect(noted.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      expect(answer.memories[0].content).toContain('order.timeout=30s');
    });

    it('en: a remembered setting, then other sessions about configuration; the remembered one comes first', async () => {
      const noted = await say('rhys', 's1', ['Remember that the retry setting for the payment worker is max_retries=5.'], 2);
      await say('rhys', 's2', ['I asked about that Consul setting again, I never remember what the setting does.'], 3);
      await smallTalk('rhys', 's3', 1, false);
      const after = (await say('rhys', 's4', ['I usually write config files in YAML, settings grouped by service.'], 2)).position;

      const answer = await recall('rhys', 'What was that setting I asked you to remember?', after, 's5');
      expect(noted.turnIds).toContain(answer.memories[0].sourceTurnIds[0]);
      expect(answer.memories[0].content).toContain('max_retries=5');
    });
  });
});
