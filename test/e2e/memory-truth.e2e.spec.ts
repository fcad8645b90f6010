import { EngramHarness, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * Issue 30, "what is true now": each reproduction of the issue that engram now meets, in Chinese and
 * in English, through the HTTP API of an embedded engram, with the times and sessions as written
 * (days apart, other sessions in between).
 */
interface Item {
  kind: string;
  attribute?: string;
  content: string;
}
interface Recalled {
  facts: Item[];
  memories: Item[];
  context: string;
}
interface StoredMemory {
  kind: string;
  subject: string;
  attribute: string;
  value: string;
  content: string;
  pinned: boolean;
  sensitive?: boolean;
  status: string;
}

const DAY = 86_400_000;

describe('what is true now (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let turnNo = 0;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-02T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterEach(async () => engram.destroy());

  /** The user says `texts` in `sessionId` at the clock's time, then the clock moves on `days`. */
  async function say(userId: string, sessionId: string, texts: string[], days = 0): Promise<string> {
    const turns = texts.map((text, index) => {
      turnNo += 1;
      return { turnId: `t${turnNo}`, text, occurredAt: new Date(clock.now().getTime() + index * 60_000).toISOString() };
    });
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    clock.set(new Date(clock.now().getTime() + days * DAY));
    return response.body.position as string;
  }

  /** Small talk in a session of its own, as real chat logs have between the sessions that matter. */
  async function smallTalk(userId: string, sessionId: string, days: number): Promise<string> {
    return say(userId, sessionId, ['帮我查一下明天的天气', 'ok thanks'], days);
  }

  async function recall(userId: string, query: string, after: string, sessionId?: string): Promise<Recalled> {
    return (
      await engram
        .http()
        .post('/v1/recall')
        .send({ userId, query, after, ...(sessionId ? { sessionId } : {}) })
        .expect(200)
    ).body as Recalled;
  }

  async function memories(userId: string): Promise<StoredMemory[]> {
    const all = (await engram.http().get(`/v1/users/${userId}/memories`).expect(200)).body.memories as StoredMemory[];
    return all.filter((m) => m.kind !== 'episode');
  }

  describe('standing constraints reach the prompts that need them', () => {
    it('"这条必须永远记住：我女儿对花生过敏", then days later "周末带孩子出去吃什么好": the allergy is a pinned fact', async () => {
      await say('mei', 's1', ['这条必须永远记住：我女儿对花生过敏'], 3);
      await smallTalk('mei', 's2', 4);
      const after = await smallTalk('mei', 's3', 2);
      const answer = await recall('mei', '周末带孩子出去吃什么好', after, 's4');
      expect(answer.facts.map((f) => f.content).join('\n')).toContain('花生');
      expect(answer.context).toContain('花生');
    });

    it('"always remember: my daughter is allergic to peanuts", then "where should we eat out with the kids this weekend?"', async () => {
      await say('joan', 's1', ['Always remember this: my daughter is allergic to peanuts.'], 3);
      await smallTalk('joan', 's2', 4);
      const after = await smallTalk('joan', 's3', 2);
      const answer = await recall('joan', 'Where should we eat out with the kids this weekend?', after, 's4');
      expect(answer.facts.map((f) => f.content).join('\n')).toContain('peanuts');
    });

    it('"我有糖尿病" and "推荐点甜品"; "我不吃香菜", "我晚上不吃碳水" and "晚饭吃什么好": all three reach the prompt', async () => {
      await say('kai', 's1', ['我有糖尿病'], 2);
      await say('kai', 's2', ['我不吃香菜'], 3);
      await say('kai', 's3', ['我晚上不吃碳水'], 1);
      const after = await smallTalk('kai', 's4', 2);
      expect((await recall('kai', '推荐点甜品', after, 's5')).context).toContain('糖尿病');
      const dinner = (await recall('kai', '晚饭吃什么好', after, 's5')).context;
      expect(dinner).toContain('香菜');
      expect(dinner).toContain('碳水');
    });

    it('"I have diabetes" and "recommend a dessert"; "I don\'t eat cilantro", "I don\'t eat carbs at night" and "what should I have for dinner?"', async () => {
      await say('ravi', 's1', ['I have diabetes.'], 2);
      await say('ravi', 's2', ["I don't eat cilantro."], 3);
      await say('ravi', 's3', ["I don't eat carbs at night."], 1);
      const after = await smallTalk('ravi', 's4', 2);
      expect((await recall('ravi', 'Recommend a dessert', after, 's5')).context).toContain('diabetes');
      const dinner = (await recall('ravi', 'What should I have for dinner?', after, 's5')).context;
      expect(dinner).toContain('cilantro');
      expect(dinner).toContain('carbs');
    });

    it('a health fact is pinned and marked sensitive; a food not taken is pinned, not sensitive', async () => {
      const after = await say('lin', 's1', ['我有高血压', '我不喝酒']);
      await recall('lin', '你好', after);
      const stored = await memories('lin');
      expect(stored.map((m) => [m.attribute, m.pinned, m.sensitive ?? false])).toEqual(
        expect.arrayContaining([
          ['health:高血压', true, true],
          ['preference:酒', true, false],
        ]),
      );
      const bundle = (await engram.http().get('/v1/users/lin/export').expect(200)).body as { memories: StoredMemory[] };
      expect(bundle.memories.find((m) => m.attribute === 'health:高血压')).toMatchObject({ sensitive: true });
    });
  });

  describe('temporary states expire with the scope they set', () => {
    it('"今天很忙" is there today and gone weeks later; "这次先用0.5g的" does not follow into the next day\'s new session', async () => {
      await say('wen', 's1', ['今天很忙，别给我安排会议']);
      clock.set(new Date(clock.now().getTime() + 3 * 3_600_000));
      const sameDay = await smallTalk('wen', 's2', 0);
      expect((await recall('wen', '我今天忙不忙', sameDay, 's2')).context).toContain('今天很忙');
      clock.set(new Date(clock.now().getTime() + 20 * DAY));
      // The next day, a new session: the previous one (with the choice) is carried over, but not the expired choice.
      const after = await say('wen', 's3', ['帮我称一下咖啡豆', '这次先用0.5g的', '咖啡豆是埃塞俄比亚的'], 1);
      const next = (await recall('wen', '帮我安排一下这周的会议，咖啡豆用多少', after, 's4')).context;
      expect(next).toContain('埃塞俄比亚');
      expect(next).not.toContain('今天很忙');
      expect(next).not.toContain('0.5g');
    });

    it('"I\'m busy today" is there today and gone weeks later; "use 0.5g this time" does not follow into the next day\'s new session', async () => {
      await say('owen', 's1', ["I'm busy today, don't book me any meetings."]);
      clock.set(new Date(clock.now().getTime() + 3 * 3_600_000));
      const sameDay = await smallTalk('owen', 's2', 0);
      expect((await recall('owen', 'am I busy today?', sameDay, 's2')).context).toContain('busy today');
      clock.set(new Date(clock.now().getTime() + 20 * DAY));
      // The next day, a new session: the previous one (with the choice) is carried over, but not the expired choice.
      const after = await say('owen', 's3', ['Weigh the coffee beans for me', 'Use 0.5g this time.', 'The beans are Ethiopian.'], 1);
      const next = (await recall('owen', 'Book my meetings this week; how much coffee do I use?', after, 's4')).context;
      expect(next).toContain('Ethiopian');
      expect(next).not.toContain('busy today');
      expect(next).not.toContain('0.5g');
    });
  });

  describe('what is pinned is what was said of the user', () => {
    it('"我是曼联球迷", "我是射手座的" and "我们公司用飞书": no name, no employer', async () => {
      const after = await say('hao', 's1', ['我是曼联球迷', '我是射手座的', '我们公司用飞书']);
      const answer = await recall('hao', '你好', after);
      expect(answer.facts.filter((f) => f.attribute === 'name')).toEqual([]);
      expect((await memories('hao')).filter((m) => m.attribute === 'name' || m.attribute === 'employer')).toEqual([]);
    });

    it('"I\'m a Man United fan", "I\'m a Sagittarius" and "our company uses Slack": no name, no employer', async () => {
      const after = await say('liam', 's1', ["I'm a Man United fan", "I'm a Sagittarius", 'Our company uses Slack']);
      const answer = await recall('liam', 'hello', after);
      expect(answer.facts.filter((f) => f.attribute === 'name')).toEqual([]);
      expect((await memories('liam')).filter((m) => m.attribute === 'name' || m.attribute === 'employer')).toEqual([]);
    });
  });

  describe('a contact id is masked', () => {
    it('"加您V：…" and "加我V：…" leave no WeChat id in the store or in recall', async () => {
      const after = await say('yun', 's1', ['有问题可以加您V：zqf161x 聊吗', '加我V：lao_wang88，发你资料']);
      const answer = await recall('yun', '微信', after);
      expect(answer.context).not.toMatch(/zqf161x|lao_wang88/);
      await engram.stop();
      expect(await engram.storedData()).not.toMatch(/zqf161x|lao_wang88/);
    });

    it('"add me on V: …" leaves no WeChat id in the store or in recall', async () => {
      const after = await say('ann', 's1', ['add me on V: zhou_lao88 and I will send the files']);
      const answer = await recall('ann', 'wechat', after);
      expect(answer.context).not.toContain('zhou_lao88');
      await engram.stop();
      expect(await engram.storedData()).not.toContain('zhou_lao88');
    });
  });
});
