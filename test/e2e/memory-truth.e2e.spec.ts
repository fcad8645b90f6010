import { DAY, DaysApart } from '../support/days-apart';
import { EngramHarness, startEngram, TestClock } from '../support/engram-harness';

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

describe('what is true now (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let talk: DaysApart;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-02T09:00:00Z'));
    engram = await startEngram({ clock });
    talk = new DaysApart(engram, clock);
  });
  afterEach(async () => engram.destroy());

  const say = (userId: string, sessionId: string, texts: string[], days = 0) => talk.say(userId, sessionId, texts, days);
  /** Small talk in a session of its own, as real chat logs have between the sessions that matter. */
  const smallTalk = (userId: string, sessionId: string, days: number) =>
    say(userId, sessionId, ['帮我查一下明天的天气', 'ok thanks'], days);
  const recall = (userId: string, query: string, after: string, sessionId?: string) =>
    talk.recall<Recalled>({ userId, query, after, sessionId });
  const memories = (userId: string) => talk.memories<StoredMemory>(userId);

  /** The context's lines that present something as current (a line marked as history is not). */
  function currentLines(context: string): string {
    return context
      .split('\n')
      .filter((line) => !/以前：|previously:/iu.test(line))
      .join('\n');
  }

  describe('changes of mind and of life land across sessions, days apart', () => {
    it('"我喜欢高热量的饮食方案" on Monday, "我改主意了，我要低卡方案" on Wednesday in a new session: the low-calorie plan is what holds', async () => {
      await say('lin', 's1', ['我喜欢高热量的饮食方案'], 1);
      await smallTalk('lin', 'f1', 1);
      const after = await say('lin', 's2', ['我改主意了，我要低卡方案'], 1);
      const context = currentLines((await recall('lin', '给我推荐一个饮食方案', after, 's3')).context);
      expect(context).toContain('低卡方案');
      expect(context).not.toContain('高热量');
    });

    it('"I like high-calorie meal plans" on Monday, "I\'ve changed my mind, I want a low-calorie plan" on Wednesday: the low-calorie plan holds', async () => {
      await say('lena', 's1', ['I like high-calorie meal plans'], 1);
      await smallTalk('lena', 'f1', 1);
      const after = await say('lena', 's2', ["I've changed my mind, I want a low-calorie plan"], 1);
      const context = currentLines((await recall('lena', 'recommend me a meal plan', after, 's3')).context);
      expect(context).toContain('low-calorie plan');
      expect(context).not.toContain('high-calorie');
    });

    it('"我在招商银行工作", "我住在北京", weeks later "现在在字节跳动上班", "我搬到上海了": the new employer and city, pinned', async () => {
      await say('gao', 's1', ['我在招商银行工作', '我住在北京'], 20);
      await smallTalk('gao', 'f1', 3);
      const after = await say('gao', 's2', ['上个月离职了，现在在字节跳动上班', '我搬到上海了'], 2);
      const answer = await recall('gao', '帮我写一段自我介绍', after, 's3');
      expect(answer.facts.map((f) => f.content).join('\n')).toMatch(/字节跳动[\s\S]*上海|上海[\s\S]*字节跳动/u);
      const context = currentLines(answer.context);
      expect(context).not.toContain('招商银行');
      expect(context).not.toContain('北京');
      const stored = await memories('gao');
      expect(
        stored.filter((m) => m.attribute === 'employer' || m.attribute === 'location').map((m) => [m.attribute, m.value, m.pinned]),
      ).toEqual(
        expect.arrayContaining([
          ['employer', '字节跳动', true],
          ['location', '上海', true],
        ]),
      );
    });

    it('"I work at Stripe", "I live in Manchester", weeks later "I work at Google now", "We finally moved to Lisbon last weekend": the new employer and city', async () => {
      await say('owen', 's1', ['I work at Stripe', 'I live in Manchester'], 20);
      await smallTalk('owen', 'f1', 3);
      const after = await say('owen', 's2', ['I work at Google now', 'We finally moved to Lisbon last weekend!'], 2);
      const answer = await recall('owen', 'write a short bio for me', after, 's3');
      const context = currentLines(answer.context);
      expect(context).toContain('Google');
      expect(context).toContain('Lisbon');
      expect(context).not.toContain('Stripe');
      expect(context).not.toContain('Manchester');
    });

    it('"以后寄到深圳…" replaces the shipping address said in an earlier session; "换了一辆特斯拉" the car', async () => {
      await say('luo', 's1', ['我的收货地址是北京市朝阳区建国路88号', '我现在开的是一辆本田思域'], 5);
      await smallTalk('luo', 'f1', 2);
      const after = await say('luo', 's2', ['以后寄到深圳市南山区科技园8号', '思域卖掉了，换了一辆特斯拉 Model 3'], 1);
      const context = currentLines((await recall('luo', '我的快递寄到哪里，我的车该保养了吗', after, 's3')).context);
      expect(context).toContain('深圳市南山区科技园8号');
      expect(context).toContain('Model 3');
      expect(context).not.toContain('建国路');
    });

    it('"ship my orders to 12 Baker Street" replaced by "ship everything to 48 Elm Road from now on"; "I drive a Honda Civic" by "I drive a Tesla Model 3 now"', async () => {
      await say('ada', 's1', ['Ship my orders to 12 Baker Street, please.', 'I drive a Honda Civic.'], 5);
      await smallTalk('ada', 'f1', 2);
      const after = await say('ada', 's2', ['Ship everything to 48 Elm Road from now on.', 'I drive a Tesla Model 3 now.'], 1);
      const context = currentLines((await recall('ada', 'where will my parcel go, and what car do I drive', after, 's3')).context);
      expect(context).toContain('48 Elm Road');
      expect(context).toContain('Tesla Model 3');
      expect(context).not.toContain('Baker Street');
      expect(context).not.toContain('Civic');
    });

    it('"我跳槽到字节跳动了" replaces the employer said months before; a 94-day-old "我最近在学Go语言" ranks below a 3-day-old "我最近在学Rust语言"', async () => {
      await say('zhao', 's1', ['我在招商银行工作', '我最近在学Go语言'], 91);
      await smallTalk('zhao', 'f1', 0);
      const after = await say('zhao', 's2', ['我跳槽到字节跳动了', '我最近在学Rust语言'], 3);
      const work = currentLines((await recall('zhao', '我现在在哪工作', after, 's3')).context);
      expect(work).toContain('字节跳动');
      expect(work).not.toContain('招商银行');
      const learning = (await recall('zhao', '我最近在学什么语言', after, 's3')).memories.map((m) => m.content);
      expect(learning.findIndex((c) => c.includes('Rust'))).toBeGreaterThanOrEqual(0);
      expect(learning.findIndex((c) => c.includes('Rust'))).toBeLessThan(learning.findIndex((c) => c.includes('Go语言')) >>> 0);
    });

    it('"I moved to Lisbon" after another sentence is where the user lives, not a correction of it; 94-day-old "learning Go" ranks below 3-day-old "learning Rust"', async () => {
      await say('ivy', 's1', ['I live in Porto', "I've been learning Go lately"], 91);
      await smallTalk('ivy', 'f1', 0);
      const after = await say(
        'ivy',
        's2',
        ["I'm planning a trip to Japan in spring", 'I moved to Lisbon', "I've been learning Rust lately"],
        3,
      );
      const home = currentLines((await recall('ivy', 'find me a gym near home', after, 's3')).context);
      expect(home).toContain('Lisbon');
      expect(home).not.toContain('Porto');
      expect(home).toContain('Japan');
      const learning = (await recall('ivy', 'what language am I learning these days?', after, 's3')).memories.map((m) => m.content);
      expect(learning.findIndex((c) => c.includes('Rust'))).toBeGreaterThanOrEqual(0);
      expect(learning.findIndex((c) => c.includes('Rust'))).toBeLessThan(learning.findIndex((c) => c.includes('learning Go')) >>> 0);
    });

    it('"周报我习惯用表格" then, days later, "周报以后改成纯文字吧": the new format holds; "下午茶我一般点奶茶" then "下午茶改喝美式"', async () => {
      await say('sun', 's1', ['周报我习惯用表格的形式来写', '下午茶我一般点奶茶'], 3);
      await smallTalk('sun', 'f1', 2);
      const after = await say('sun', 's2', ['周报以后改成纯文字吧，表格太麻烦了', '下午茶改喝美式'], 1);
      const context = currentLines((await recall('sun', '帮我写周报，顺便点个下午茶', after, 's3')).context);
      expect(context).toContain('纯文字');
      expect(context).toContain('美式');
      expect(context).not.toContain('习惯用表格');
      expect(context).not.toContain('一般点奶茶');
    });

    it('"Keep your answers short and in bullet points" then, days later, "From now on I want detailed explanations": the new rule holds', async () => {
      await say('eve', 's1', ['Please keep your answers short and in bullet points.'], 3);
      await smallTalk('eve', 'f1', 2);
      const after = await say('eve', 's2', ['From now on I want detailed explanations in full paragraphs, not bullet points.'], 1);
      const context = currentLines((await recall('eve', 'Explain how DNS resolution works', after, 's3')).context);
      expect(context).toContain('detailed explanations');
      expect(context).not.toContain('short and in bullet points');
    });
  });

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

    it('"我养了一只金毛，叫旺财" and "我女儿叫小美", weeks later in English "What is my dog called?": the family\'s names are pinned', async () => {
      await say('ning', 's1', ['我养了一只金毛，叫旺财'], 2);
      await say('ning', 's2', ['我女儿叫小美，今年六岁'], 9);
      const after = await smallTalk('ning', 's3', 12);
      const answer = await recall('ning', 'What is my dog called?', after, 's4');
      expect(answer.facts.map((f) => f.content).join('\n')).toContain('旺财');
      expect((await recall('ning', '给孩子的生日派对怎么安排', after, 's4')).context).toContain('小美');
      expect((await memories('ning')).filter((m) => m.pinned).map((m) => [m.attribute, m.value])).toEqual(
        expect.arrayContaining([
          ['family:金毛', '旺财'],
          ['family:daughter', '小美'],
        ]),
      );
    });

    it('"We adopted a kitten named Miso" and "my son is called Leo", weeks later "What\'s my cat called?"; "I can\'t stand spicy food" and "should I order the chili chicken?"', async () => {
      await say('ada', 's1', ['We adopted a kitten named Miso.'], 2);
      await say('ada', 's2', ['My son is called Leo.', "I can't stand spicy food."], 9);
      const after = await smallTalk('ada', 's3', 12);
      expect((await recall('ada', "What's my cat called?", after, 's4')).context).toContain('Miso');
      expect((await recall('ada', 'Plan a birthday party for my kid', after, 's4')).context).toContain('Leo');
      expect((await recall('ada', 'Should I order the chili chicken?', after, 's4')).context).toContain('spicy');
    });

    it('"他不吃香菜" and "she never eats meat" are about someone else: nothing is pinned for the user', async () => {
      const after = await say('bo', 's1', ['我同事来吃饭。他不吃香菜', 'My sister is visiting. She never eats meat.']);
      await recall('bo', '你好', after);
      expect((await memories('bo')).filter((m) => m.pinned)).toEqual([]);
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
      talk.later(3 * 3_600_000);
      const sameDay = await smallTalk('wen', 's2', 0);
      expect((await recall('wen', '我今天忙不忙', sameDay, 's2')).context).toContain('今天很忙');
      talk.later(20 * DAY);
      // The next day, a new session: the previous one (with the choice) is carried over, but not the expired choice.
      const after = await say('wen', 's3', ['帮我称一下咖啡豆', '这次先用0.5g的', '咖啡豆是埃塞俄比亚的'], 1);
      const next = (await recall('wen', '帮我安排一下这周的会议，咖啡豆用多少', after, 's4')).context;
      expect(next).toContain('埃塞俄比亚');
      expect(next).not.toContain('今天很忙');
      expect(next).not.toContain('0.5g');
    });

    it('"I\'m busy today" is there today and gone weeks later; "use 0.5g this time" does not follow into the next day\'s new session', async () => {
      await say('owen', 's1', ["I'm busy today, don't book me any meetings."]);
      talk.later(3 * 3_600_000);
      const sameDay = await smallTalk('owen', 's2', 0);
      expect((await recall('owen', 'am I busy today?', sameDay, 's2')).context).toContain('busy today');
      talk.later(20 * DAY);
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
