import { recalledContents, saidAmong } from '../support/days-apart';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/**
 * Meaning across words and languages in the default mode (issue 30, point 6): the hashing embedder,
 * no model server; the bilingual lexicon (CC-CEDICT, ENGRAM_LEXICON=cedict by default) is what knows
 * that 过敏 is "allergic" and that 拍照 and 商品照片 are both about pictures. Each example is asked of a
 * user who said it in Chinese and of one who said it in English, among other things they said.
 */
describe('meaning across languages and wordings (HTTP, default embedder)', () => {
  let engram: EngramHarness;

  beforeAll(async () => {
    engram = await startEngram();
  });
  afterAll(async () => engram.destroy());

  /** What each user said: the statement under test, then the same unrelated things everyone says. */
  const CHINESE_SMALL_TALK = ['我们组每周三下午开例会', '我喜欢用 VS Code 写代码', '周末想去爬山，不知道天气怎么样'];
  const ENGLISH_SMALL_TALK = [
    'Our team meets every Wednesday afternoon',
    'I prefer VS Code for writing code',
    'Might go hiking this weekend if the weather holds',
  ];

  let user = 0;
  /** A fresh user who said `statement` among the small talk. */
  const userWhoSaid = (statement: string, smallTalk: readonly string[]) => saidAmong(engram, `u${++user}`, statement, smallTalk);
  const recall = (said: { userId: string; after: string }, query: string) => recalledContents(engram, said, query);

  it('an English question finds what was said in Chinese', async () => {
    const said = await userWhoSaid('我对花生过敏，吃了会起疹子', CHINESE_SMALL_TALK);
    expect((await recall(said, 'What am I allergic to?'))[0]).toContain('花生过敏');
  });

  it('a Chinese question finds what was said in English', async () => {
    const said = await userWhoSaid("I'm allergic to peanuts, they give me a rash", ENGLISH_SMALL_TALK);
    expect((await recall(said, '我对什么过敏？'))[0]).toContain('allergic to peanuts');
  });

  it('拍照 finds 上传商品照片, asked in Chinese and in English', async () => {
    const said = await userWhoSaid('我的网店明天要上传一批新的商品照片', CHINESE_SMALL_TALK);
    expect((await recall(said, '我明天要拍照吗？'))[0]).toContain('商品照片');
    expect((await recall(said, 'When do I need to take pictures?'))[0]).toContain('商品照片');
  });

  it('拍照 finds the product pictures said in English', async () => {
    const said = await userWhoSaid('Tomorrow I have to upload a new batch of product pictures to my online shop', ENGLISH_SMALL_TALK);
    expect((await recall(said, '我明天要拍照吗？'))[0]).toContain('product pictures');
  });

  it('红眼航班 is found by a question about flights, and red-eye flights by one about 航班', async () => {
    const chinese = await userWhoSaid('我出差只坐红眼航班，白天的太贵了', CHINESE_SMALL_TALK);
    expect((await recall(chinese, 'Which flights do I usually take?'))[0]).toContain('红眼航班');
    const english = await userWhoSaid('On business trips I only take red-eye flights, daytime ones cost too much', ENGLISH_SMALL_TALK);
    expect((await recall(english, '我一般坐什么航班？'))[0]).toContain('red-eye flights');
  });

  it('晚饭 finds what was said about the evening, in Chinese and in English', async () => {
    const chinese = await userWhoSaid('我晚上不吃碳水，在减脂', CHINESE_SMALL_TALK);
    expect((await recall(chinese, '晚饭吃什么好？'))[0]).toContain('不吃碳水');
    const english = await userWhoSaid("I don't eat carbs in the evening, I'm cutting", ENGLISH_SMALL_TALK);
    expect((await recall(english, '晚饭吃什么好？'))[0]).toContain('carbs in the evening');
  });

  it('looking into the past (asOf), an English question finds what was said in Chinese as the index does', async () => {
    const said = await userWhoSaid('我对花生过敏，吃了会起疹子', CHINESE_SMALL_TALK);
    const response = await engram
      .http()
      .post('/v1/recall')
      .send({ userId: said.userId, query: 'What am I allergic to?', after: said.after, asOf: new Date().toISOString() })
      .expect(200);
    expect(response.body.memories[0].content).toContain('花生过敏');
  });

  it('a question about something never said still finds nothing', async () => {
    const said = await userWhoSaid('我对花生过敏，吃了会起疹子', CHINESE_SMALL_TALK);
    expect(await recall(said, 'Which bank do I use?')).toEqual([]);
  });
});

describe('without the lexicon (ENGRAM_LEXICON=none)', () => {
  let engram: EngramHarness;

  beforeAll(async () => {
    engram = await startEngram({ env: { ENGRAM_LEXICON: 'none' } });
  });
  afterAll(async () => engram.destroy());

  it('an English question shares no word with a Chinese memory, so finds nothing', async () => {
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('zh', 's1', [{ turnId: 't1', text: '我对花生过敏，吃了会起疹子' }]))
      .expect(202);
    const recalled = await engram
      .http()
      .post('/v1/recall')
      .send({ userId: 'zh', query: 'What am I allergic to?', after: response.body.position })
      .expect(200);
    expect(recalled.body.memories).toEqual([]);
  });
});
