import { EngramHarness, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * Issue 11, §1 "corrections that always land" and the chat side of §2 (forget requests, "remember"
 * with a preamble, emphasis, archiving at the defaults): each reproduction of the issue, in Chinese
 * and in English, through the HTTP API of an embedded engram, as a user would meet it.
 */
interface Item {
  kind: string;
  content: string;
}
interface Recalled {
  facts: Item[];
  memories: Item[];
}
interface StoredMemory {
  memoryId: string;
  kind: string;
  subject: string;
  attribute: string;
  value: string;
  content: string;
  status: string;
  importance: number;
  history: { value: string }[];
}

describe('corrections and chat-side control (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let turnNo = 0;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterEach(async () => engram.destroy());

  /** Posts user turns (a minute apart, ending an hour before the clock) and returns the read-your-writes position. */
  async function say(userId: string, texts: string[], sessionId = 's1'): Promise<string> {
    const turns = texts.map((text) => {
      turnNo += 1;
      return { turnId: `t${turnNo}`, text, occurredAt: new Date(clock.now().getTime() - 3_600_000 + turnNo * 60_000).toISOString() };
    });
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    return response.body.position as string;
  }

  async function recall(userId: string, query: string, after?: string): Promise<string> {
    const body = (
      await engram
        .http()
        .post('/v1/recall')
        .send({ userId, query, ...(after ? { after } : {}) })
        .expect(200)
    ).body as Recalled;
    return [...body.facts, ...body.memories].map((m) => m.content).join('\n');
  }

  async function firstMemory(userId: string, query: string): Promise<string | undefined> {
    const body = (await engram.http().post('/v1/recall').send({ userId, query }).expect(200)).body as Recalled;
    return body.memories[0]?.content;
  }

  async function memories(userId: string, status: 'active' | 'all' = 'active'): Promise<StoredMemory[]> {
    const all = (await engram.http().get(`/v1/users/${userId}/memories?status=${status}`).expect(200)).body.memories as StoredMemory[];
    return all.filter((m) => m.kind !== 'episode');
  }

  describe('§1 a correction supersedes what it answers, whether or not the rules know its attribute', () => {
    it('"把服务器时间改成8点", then "不对，改成9点": 9点 is recalled, 8点 is only history', async () => {
      await say('lei', ['把服务器时间改成8点']);
      const after = await say('lei', ['不对，改成9点']);
      const recalled = await recall('lei', '服务器时间是几点', after);
      expect(recalled).toContain('9点');
      expect(recalled).not.toContain('8点');
      const [time] = (await memories('lei')).filter((m) => m.attribute === '服务器时间');
      expect(time).toMatchObject({ value: '9点', history: [{ value: '8点' }] });
    });

    it('"set the standup to 9am", then "no, make it 10": 10 is recalled, 9am is only history', async () => {
      await say('maya', ['set the standup to 9am']);
      const after = await say('maya', ['no, make it 10']);
      const recalled = await recall('maya', 'what time is the standup', after);
      expect(recalled).toContain('make it 10');
      expect(recalled).not.toContain('9am');
      const [standup] = (await memories('maya')).filter((m) => m.attribute === 'standup');
      expect(standup).toMatchObject({ value: '10', history: [{ value: '9am' }] });
    });

    it('"我喜欢高热量的饮食方案", then "我改主意了，我要低卡方案": only the low-calorie plan is recalled', async () => {
      await say('fang', ['我喜欢高热量的饮食方案']);
      const after = await say('fang', ['我改主意了，我要低卡方案']);
      const recalled = await recall('fang', '我要什么饮食方案', after);
      expect(recalled).toContain('低卡方案');
      expect(recalled).not.toContain('高热量');
      const plan = (await memories('fang', 'all')).filter((m) => m.history.length > 0);
      expect(plan.map((m) => [m.status, m.value, m.history.map((h) => h.value)])).toEqual([['active', '低卡方案', ['like']]]);
    });

    it('"I like high-calorie meal plans", then "I\'ve changed my mind, I want a low-calorie plan": only the new plan is recalled', async () => {
      await say('nina', ['I like high-calorie meal plans']);
      const after = await say('nina', ["I've changed my mind, I want a low-calorie plan"]);
      const recalled = await recall('nina', 'which meal plan do I want', after);
      expect(recalled).toContain('low-calorie plan');
      expect(recalled).not.toContain('high-calorie');
      expect((await memories('nina')).filter((m) => m.history.length > 0).map((m) => m.value)).toEqual(['low-calorie plan']);
    });

    it('three successive shipping addresses (Chinese): one memory, the newest recalled, none of them a budget', async () => {
      await say('zhou', ['预算三万']);
      await say('zhou', ['我的收货地址是北京市朝阳区建国路88号'], 's1');
      await say('zhou', ['我的收货地址改成上海市浦东新区世纪大道100号'], 's2');
      const after = await say('zhou', ['收货地址改成杭州市西湖区文三路200号'], 's3');
      const recalled = await recall('zhou', '我的收货地址是哪里', after);
      expect(recalled).toContain('文三路200号');
      expect(recalled).not.toMatch(/建国路|世纪大道/);
      const stored = await memories('zhou');
      expect(stored.filter((m) => m.attribute === 'shipping_address').map((m) => [m.value, m.history.map((h) => h.value)])).toEqual([
        ['杭州市西湖区文三路200号', ['北京市朝阳区建国路88号', '上海市浦东新区世纪大道100号']],
      ]);
      expect(stored.filter((m) => m.attribute === 'budget').map((m) => [m.value, m.history.length])).toEqual([['三万', 0]]);
    });

    it('three successive shipping addresses (English): one memory, the newest recalled, none of them a budget', async () => {
      await say('sam', ['The budget is $3000']);
      await say('sam', ['my shipping address is 12 Oak Street'], 's1');
      await say('sam', ['change my shipping address to 300 Pine Road'], 's2');
      const after = await say('sam', ['my shipping address changed to 450 Elm Avenue'], 's3');
      const recalled = await recall('sam', 'what is my shipping address', after);
      expect(recalled).toContain('450 Elm Avenue');
      expect(recalled).not.toMatch(/Oak Street|Pine Road/);
      const stored = await memories('sam');
      expect(stored.filter((m) => m.attribute === 'shipping_address').map((m) => [m.value, m.history.map((h) => h.value)])).toEqual([
        ['450 Elm Avenue', ['12 Oak Street', '300 Pine Road']],
      ]);
      expect(stored.filter((m) => m.attribute === 'budget').map((m) => [m.value, m.history.length])).toEqual([['$3000', 0]]);
    });

    it('a number in a sentence not about money is not a budget: "我的收货地址改成…100号" leaves the budget alone', async () => {
      await say('qin', ['项目预算是五万']);
      const after = await say('qin', ['我的收货地址改成上海市浦东新区世纪大道100号']);
      await recall('qin', '预算', after);
      const stored = await memories('qin');
      expect(stored.find((m) => m.attribute === 'budget')).toMatchObject({ value: '五万', history: [] });
      expect(stored.find((m) => m.attribute === 'shipping_address')).toMatchObject({ value: '上海市浦东新区世纪大道100号' });
    });

    it('a number in a sentence not about money is not a budget: "my meeting room changed to room 301" leaves the budget alone', async () => {
      await say('leo', ['our budget is 50k']);
      const after = await say('leo', ['my meeting room changed to room 301']);
      await recall('leo', 'budget', after);
      const stored = await memories('leo');
      expect(stored.find((m) => m.attribute === 'budget')).toMatchObject({ value: '50k', history: [] });
      expect(stored.find((m) => m.attribute === 'meeting-room')).toMatchObject({ value: 'room 301' });
    });

    it('"我已经入职了，现在的岗位是Go后端开发工程师" is extracted, and answers before a 3-month-old "我最近在学Go语言"', async () => {
      clock.set('2026-08-30T09:00:00Z');
      await say('wei', ['我最近在学Go语言'], 's1');
      clock.set('2026-11-30T09:00:00Z');
      const after = await say('wei', ['我已经入职了，现在的岗位是Go后端开发工程师'], 's2');
      await recall('wei', '岗位', after);
      expect((await memories('wei')).find((m) => m.attribute === 'role')).toMatchObject({ kind: 'profile', value: 'Go后端开发工程师' });
      expect(await firstMemory('wei', '我现在的岗位是什么')).toContain('Go后端开发工程师');
    });

    it('"I\'ve started the new job, my position now is Go backend engineer" is extracted, and answers before a 3-month-old "I\'ve been learning Go lately"', async () => {
      clock.set('2026-08-30T09:00:00Z');
      await say('alex', ["I've been learning Go lately"], 's1');
      clock.set('2026-11-30T09:00:00Z');
      const after = await say('alex', ["I've started the new job, my position now is Go backend engineer"], 's2');
      await recall('alex', 'position', after);
      expect((await memories('alex')).find((m) => m.attribute === 'role')).toMatchObject({ kind: 'profile', value: 'Go backend engineer' });
      expect(await firstMemory('alex', 'what is my position now')).toContain('Go backend engineer');
    });

    it('"不是MySQL，是PostgreSQL" supersedes MySQL and is what "我们用什么数据库" recalls', async () => {
      await say('lin', ['我们用 MySQL'], 's1');
      const after = await say('lin', ['不是MySQL，是PostgreSQL'], 's2');
      expect(await recall('lin', '我们用什么数据库', after)).toContain('PostgreSQL');
      expect((await memories('lin')).find((m) => m.attribute === 'database')).toMatchObject({
        value: 'PostgreSQL',
        history: [{ value: 'MySQL' }],
      });
    });

    it('"it\'s not MySQL, it\'s PostgreSQL" supersedes MySQL and is what "which database do we use" recalls', async () => {
      await say('kim', ['we use MySQL'], 's1');
      const after = await say('kim', ["it's not MySQL, it's PostgreSQL"], 's2');
      expect(await recall('kim', 'which database do we use', after)).toContain('PostgreSQL');
      expect((await memories('kim')).find((m) => m.attribute === 'database')).toMatchObject({
        value: 'PostgreSQL',
        history: [{ value: 'MySQL' }],
      });
    });

    it('an unrelated correction in the same conversation touches nothing: "其实我穿 43.5 更合适" after an allergy', async () => {
      await say('mei', ['我对芒果过敏']);
      const after = await say('mei', ['其实我穿 43.5 更合适']);
      await recall('mei', '过敏', after);
      expect((await memories('mei')).find((m) => m.attribute.startsWith('allergy'))).toMatchObject({ value: '芒果', history: [] });
    });

    it('an unrelated correction in the same conversation touches nothing: "actually I\'m a size 11 now" after an allergy', async () => {
      await say('ann', ["I'm allergic to peanuts"]);
      const after = await say('ann', ["actually I'm a size 11 now"]);
      await recall('ann', 'allergic', after);
      expect((await memories('ann')).find((m) => m.attribute.startsWith('allergy'))).toMatchObject({ value: 'peanuts', history: [] });
    });
  });

  describe('§2 forgetting and emphasis, said in chat', () => {
    it('"忘掉我之前说的喜欢吃榴莲" and "忘掉我喜欢吃榴莲这件事" retract the preference; nothing about 榴莲 is recalled', async () => {
      await say('xia', ['我喜欢吃榴莲', '我喜欢吃火锅'], 's1');
      await say('xia', ['忘掉我之前说的喜欢吃榴莲'], 's2');
      await say('hua', ['我喜欢吃榴莲'], 's1');
      const after = await say('hua', ['忘掉我喜欢吃榴莲这件事'], 's2');
      for (const userId of ['xia', 'hua']) {
        const recalled = await recall(userId, '我喜欢吃什么', after);
        expect(recalled).not.toContain('榴莲');
        const all = await memories(userId, 'all');
        expect(all.filter((m) => m.content.includes('榴莲')).map((m) => [m.attribute, m.status])).toEqual([
          ['preference:榴莲', 'retracted'],
        ]);
      }
      expect(await recall('xia', '我喜欢吃什么')).toContain('火锅');
    });

    it('"forget that I like durian" and "forget what I said about durian" retract the preference; nothing about durian is recalled', async () => {
      await say('joe', ['I like durian', 'I like hotpot'], 's1');
      await say('joe', ['forget that I like durian'], 's2');
      await say('eve', ['I like durian'], 's1');
      const after = await say('eve', ['forget what I said about durian'], 's2');
      for (const userId of ['joe', 'eve']) {
        const recalled = await recall(userId, 'what food do I like', after);
        expect(recalled).not.toContain('durian');
        const all = await memories(userId, 'all');
        expect(all.filter((m) => m.content.includes('durian')).map((m) => [m.attribute, m.status])).toEqual([
          ['preference:durian', 'retracted'],
        ]);
      }
      expect(await recall('joe', 'what food do I like')).toContain('hotpot');
    });

    it('"这条必须永远记住：我女儿对花生过敏" is the daughter\'s allergy, more important than said plainly', async () => {
      await say('plain', ['我女儿对花生过敏']);
      const after = await say('stress', ['这条必须永远记住：我女儿对花生过敏']);
      await recall('stress', '花生过敏', after);
      const [plain] = (await memories('plain')).filter((m) => m.attribute.startsWith('allergy'));
      const [stressed] = (await memories('stress')).filter((m) => m.attribute.startsWith('allergy'));
      expect(stressed).toMatchObject({ subject: 'daughter', value: '花生' });
      expect(plain).toMatchObject({ subject: 'daughter', value: '花生' });
      expect(stressed.importance).toBeGreaterThan(plain.importance);
    });

    it('"never forget: my daughter is allergic to peanuts" is the daughter\'s allergy, more important than said plainly', async () => {
      await say('plain-en', ['my daughter is allergic to peanuts']);
      const after = await say('stress-en', ['never forget: my daughter is allergic to peanuts']);
      await recall('stress-en', 'peanut allergy', after);
      const [plain] = (await memories('plain-en')).filter((m) => m.attribute.startsWith('allergy'));
      const [stressed] = (await memories('stress-en')).filter((m) => m.attribute.startsWith('allergy'));
      expect(stressed).toMatchObject({ subject: 'daughter', value: 'peanuts' });
      expect(plain).toMatchObject({ subject: 'daughter', value: 'peanuts' });
      expect(stressed.importance).toBeGreaterThan(plain.importance);
    });

    it('"永远", "绝对", "以后都" raise importance like "记住"', async () => {
      await say('a', ['我不吃香菜', '我喜欢喝美式咖啡', '我不喝酒']);
      await say('b', ['我以后都不吃香菜', '我永远喜欢喝美式咖啡', '我绝对不喝酒']);
      const after = await say('c', ['记住，我不吃香菜']);
      await recall('c', '香菜', after);
      const importance = async (userId: string) => Object.fromEntries((await memories(userId)).map((m) => [m.attribute, m.importance]));
      const [plain, stressed, remembered] = [await importance('a'), await importance('b'), await importance('c')];
      expect(Object.keys(stressed).sort()).toEqual(Object.keys(plain).sort());
      for (const attribute of Object.keys(plain)) expect(stressed[attribute]).toBeGreaterThan(plain[attribute]);
      expect(stressed['preference:香菜']).toBe(remembered['preference:香菜']);
    });

    it('"always" and "never forget" raise importance like "remember"', async () => {
      await say('d', ['I usually fly economy', "I don't eat cilantro"]);
      await say('e', ['I always fly economy', "never forget: I don't eat cilantro"]);
      const after = await say('f', ["remember that I don't eat cilantro"]);
      await recall('f', 'cilantro', after);
      const importance = async (userId: string) => Object.fromEntries((await memories(userId)).map((m) => [m.attribute, m.importance]));
      const [plain, stressed, remembered] = [await importance('d'), await importance('e'), await importance('f')];
      expect(Object.keys(stressed).sort()).toEqual(Object.keys(plain).sort());
      for (const attribute of Object.keys(plain)) expect(stressed[attribute]).toBeGreaterThan(plain[attribute]);
      expect(stressed['preference:cilantro']).toBe(remembered['preference:cilantro']);
    });
  });

  describe('§2 archiving runs at the default policy', () => {
    async function runForgetting(): Promise<{ archived: number; consistent: boolean }> {
      return (await engram.http().post('/v1/forgetting/run').send({}).expect(200)).body;
    }

    for (const [language, once, twice, query] of [
      ['Chinese', '我喜欢喝乌龙茶', '我喜欢喝绿茶', '喝什么茶'],
      ['English', 'I prefer aisle seats on long flights', 'I prefer window seats', 'window seats'],
    ] as const) {
      it(`archives what was said once and never recalled for 90 days; what was said twice stays (${language})`, async () => {
        const after = await say('ivy', [once, twice, twice]);
        await recall('ivy', query, after);
        clock.advanceDays(89);
        expect((await runForgetting()).archived).toBe(0);
        clock.advanceDays(2);
        const run = await runForgetting();
        expect(run.consistent).toBe(true);
        expect(run.archived).toBeGreaterThanOrEqual(1);
        const statuses = Object.fromEntries((await memories('ivy', 'all')).map((m) => [m.content, m.status]));
        expect(statuses).toEqual({ [once]: 'archived', [twice]: 'active' });
        const ofKinds = async (text: string, kinds: string[]) =>
          ((await engram.http().post('/v1/recall').send({ userId: 'ivy', query: text, kinds }).expect(200)).body as Recalled).memories.map(
            (m) => m.content,
          );
        expect(await ofKinds(once, ['preference'])).not.toContain(once);
        // What was said is not lost: the turn's episode is never archived for its confidence.
        expect(await ofKinds(once, ['episode'])).toContain(once);
        expect(await recall('ivy', query)).toContain(twice);
      });
    }
  });
});
