import type { Lexicon } from '@engram/ports';
import { heldInEitherLanguage, lexiconWords, translatedTerms } from './translation';

/** A lexicon of a few words, as the CC-CEDICT reader gives them (senses as tokenized English). */
function lexiconOf(words: Record<string, string[][]>): Lexicon & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    id: 'test',
    longestWord: Math.max(...Object.keys(words).map((w) => [...w].length)),
    asked,
    sensesOf: (word) => {
      asked.push(word);
      return words[word];
    },
    relatedOf: () => undefined,
  };
}

const lexicon = lexiconOf({
  照片: [['photograph'], ['picture']],
  拍照: [['picture']],
  上传: [['upload']],
  商品: [['commodity'], ['good']],
  航班: [['schedul', 'flight'], ['plane']],
  笔记本电脑: [['laptop'], ['notebook']],
  笔记本: [['notebook']],
  电脑: [['computer']],
  手提电脑: [['portable', 'computer']],
  手提: [['portable']],
  过敏: [['oversensitive'], ['allergic']],
  多少: [['number'], ['amount']],
  什么: [['anyth']],
  我们: [],
  车: [['car'], ['chariot']],
});

describe('translatedTerms', () => {
  it("gives a Chinese text's words in English, once each, leaving English text alone", () => {
    expect(translatedTerms('我要上传商品照片', lexicon)).toEqual(['upload', 'commodity', 'good', 'photograph', 'picture']);
    expect(translatedTerms('I want to upload the product pictures', lexicon)).toEqual([]);
    expect(translatedTerms('我要上传商品照片', undefined)).toEqual([]);
  });

  it('leaves out the English the text already says', () => {
    expect(translatedTerms('上传 upload', lexicon)).toEqual([]);
  });

  it('reads no single character, function word or question word: their first senses are seldom the one meant', () => {
    expect(translatedTerms('我的车', lexicon)).toEqual([]);
    expect(translatedTerms('我们有多少', lexicon)).toEqual([]);
    expect(translatedTerms('什么', lexicon)).toEqual([]);
  });
});

describe('lexiconWords', () => {
  it("cuts a run into the lexicon's longest words: the dictionary's words, not the segmenter's", () => {
    // The segmenter cuts 红眼航班 into four single characters; the dictionary knows 航班.
    expect(lexiconWords('我出差只坐红眼航班', lexicon)).toEqual(['航班']);
    expect(lexiconWords('上传商品照片', lexicon)).toEqual(['上传', '商品', '照片']);
  });

  it('also reads a word of four characters or more as its own words, so two compounds meet on a part', () => {
    expect(lexiconWords('我的笔记本电脑', lexicon)).toEqual(['笔记本电脑', '笔记本', '电脑']);
    expect(lexiconWords('手提电脑', lexicon)).toEqual(['手提电脑', '手提', '电脑']);
  });

  it('looks no word up past eight characters', () => {
    const long = lexiconOf({ 一二三四五六七八九: [['nine']] });
    lexiconWords('一二三四五六七八九', long);
    expect(Math.max(...long.asked.map((w) => [...w].length))).toBe(8);
  });

  it('counts a character beyond the BMP as one', () => {
    expect(lexiconWords('𠀀照片𠀀', lexicon)).toEqual(['照片']);
  });
});

describe('heldInEitherLanguage', () => {
  const held = new Set(['my', 'flight', 'leav']);

  it('holds a term as written, with or without a lexicon', () => {
    expect(heldInEitherLanguage('flight', held, undefined)).toBe(true);
    expect(heldInEitherLanguage('flight', held, lexicon)).toBe(true);
  });

  it('holds a Chinese word by a word of one of its senses', () => {
    expect(heldInEitherLanguage('航班', held, lexicon)).toBe(true);
    expect(heldInEitherLanguage('航班', held, undefined)).toBe(false);
    expect(heldInEitherLanguage('照片', held, lexicon)).toBe(false);
  });

  it('never holds a single character or a question word through the lexicon', () => {
    expect(heldInEitherLanguage('车', new Set(['car']), lexicon)).toBe(false);
    expect(heldInEitherLanguage('多少', new Set(['number']), lexicon)).toBe(false);
  });
});
