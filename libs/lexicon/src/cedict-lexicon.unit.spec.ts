import { cedictLexicon, onFirstUse } from './cedict-lexicon';

/** Lines as CC-CEDICT writes them (traditional simplified [pinyin] /sense/sense/), a header included. */
const CEDICT = [
  '# CC-CEDICT',
  '#! date=2019-05-27T20:06:35Z',
  '照片 照片 [zhao4 pian4] /photograph/picture/CL:張|张[zhang1],套[tao4],幅[fu2]/',
  '航班 航班 [hang2 ban1] /scheduled flight/flight number/plane/scheduled sailing/sailing number/passenger ship/',
  '便宜 便宜 [bian4 yi2] /convenient/',
  '便宜 便宜 [pian2 yi5] /cheap/inexpensive/small advantages/to let sb off lightly/',
  "延長 延长 [Yan2 chang2] /Yanchang county in Yan'an 延安[Yan2 an1], Shaanxi/",
  '延長 延长 [yan2 chang2] /to prolong/to extend/to delay/',
  '成都 成都 [Cheng2 du1] /Chengdu subprovincial city and capital of Sichuan province 四川 in southwest China/',
  '上聲 上声 [shang3 sheng1] /falling and rising tone/third tone in modern Mandarin/',
  '上 上 [shang3] /see 上聲|上声[shang3 sheng1]/',
  '上 上 [shang4] /on top/upon/above/upper/previous/',
  '起飛 起飞 [qi3 fei1] /(of an aircraft) to take off/',
  '不好 不好 [bu4 hao3] /no good/',
  '小孩 小孩 [xiao3 hai2] /child/CL:個|个[ge4]/',
  '小孩兒 小孩儿 [xiao3 hai2 r5] /erhua variant of 小孩[xiao3 hai2]/',
  '大阪 大阪 [Da4 ban3] /Ōsaka, city and prefecture in Japan/',
  '出差 出差 [chu1 chai1] /to go on an official or business trip/',
  '我們 我们 [wo3 men5] /we/us/ourselves/our/',
  'T恤 T恤 [T xu4] /T-shirt/',
].join('\n');

describe('cedictLexicon', () => {
  const lexicon = cedictLexicon(CEDICT, { senses: 2, terms: 4 });

  it('gives the first sense whole and, after it, senses of one word (another name for the same thing)', () => {
    expect(lexicon.sensesOf('照片')).toEqual([['photograph'], ['picture']]);
    // "flight number" is another use of 航班, not another name: the next one-word sense is.
    expect(lexicon.sensesOf('航班')).toEqual([['schedul', 'flight'], ['plane']]);
    expect(lexicon.sensesOf('出差')).toEqual([['official', 'business', 'trip']]);
  });

  it("gives each reading's first sense before any reading's second", () => {
    expect(lexicon.sensesOf('便宜')).toEqual([['convenient'], ['cheap'], ['inexpensive']]);
  });

  it('reads a name only when the word has no other meaning, and then only the name', () => {
    expect(lexicon.sensesOf('延长')).toEqual([['prolong'], ['extend']]);
    expect(lexicon.sensesOf('成都')).toEqual([['chengdu']]);
    expect(lexicon.sensesOf('大阪')).toEqual([['osaka']]);
  });

  it('follows a reference one step, and only when the word says nothing of its own', () => {
    expect(lexicon.sensesOf('小孩儿')).toEqual([['child']]);
    expect(lexicon.sensesOf('上')).toEqual([['top'], ['upon']]);
  });

  it('reads the asides of a sense that says nothing else, and nothing of a negated one', () => {
    expect(lexicon.sensesOf('起飞')).toEqual([['aircraft']]);
    expect(lexicon.sensesOf('不好')).toEqual([]);
    expect(lexicon.sensesOf('我们')).toEqual([]);
  });

  it('holds Chinese headwords only; an unknown word is undefined', () => {
    expect(lexicon.sensesOf('t恤')).toBeUndefined();
    expect(lexicon.sensesOf('红眼')).toBeUndefined();
    expect(lexicon.longestWord).toBe(3);
  });

  it('bounds the terms a word gives', () => {
    expect(cedictLexicon(CEDICT, { senses: 2, terms: 2 }).sensesOf('出差')).toEqual([['official', 'business']]);
    expect(cedictLexicon(CEDICT, { senses: 1, terms: 4 }).sensesOf('照片')).toEqual([['photograph']]);
  });

  it("names the dictionary's date and the reading in its id", () => {
    expect(lexicon.id).toBe('cedict-2019-05-27-s2t4');
  });
});

describe('onFirstUse', () => {
  it('builds the lexicon the first time it is asked, once', () => {
    let builds = 0;
    const lazy = onFirstUse('lazy', () => {
      builds++;
      return cedictLexicon(CEDICT);
    });
    expect(builds).toBe(0);
    expect(lazy.sensesOf('照片')).toEqual([['photograph'], ['picture']]);
    expect(lazy.longestWord).toBe(3);
    expect(builds).toBe(1);
  });
});
