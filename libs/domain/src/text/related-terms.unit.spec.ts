import type { Lexicon, RelatedWords } from '@engram/ports';
import { heldThroughThesaurus, lexiconTerms, termsInDictionaryForm, thesaurusWords } from './related-terms';
import { tokenize } from './tokenizer';

/**
 * A lexicon of a few words, as the readers give them (CC-CEDICT's senses, WordNet's related words,
 * both as tokenized English); it records what it was asked.
 */
function lexiconOf(chinese: Record<string, string[][]>, english: Record<string, RelatedWords>): Lexicon & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    id: 'test',
    longestWord: 2,
    asked,
    sensesOf: (word) => chinese[word],
    relatedOf: (word) => {
      asked.push(word);
      return english[word];
    },
  };
}

const lexicon = lexiconOf(
  { 睡觉: [['bed'], ['sleep']], 休息: [['rest']] },
  {
    lands: { forms: ['land'], same: ['lander'], broader: ['arrive'] },
    land: { forms: [], same: ['lander'], broader: ['arrive'] },
    arriv: { forms: ['arrive'], same: ['arrival'], broader: [] },
    physician: { forms: [], same: ['doctor', 'doc'], broader: ['medical'] },
    sleep: { forms: [], same: ['slumber'], broader: ['rest'] },
    john: { forms: [], same: ['toilet'], broader: ['room'] },
  },
);

describe('lexiconTerms', () => {
  it("gives a memory its words' dictionary forms, synonyms and broader words, leaving out what it says", () => {
    expect(lexiconTerms('My flight lands at 6', lexicon, 'memory')).toEqual(['lander', 'arrive']);
    expect(lexiconTerms('My physician says walk more; a doctor knows', lexicon, 'memory')).toEqual(['doc', 'medical']);
  });

  it('does not widen a question: a memory is already one step from it', () => {
    expect(lexiconTerms('When do I arriv?', lexicon, 'question')).toEqual([]);
    expect(lexiconTerms('Which physician?', lexicon, 'question')).toEqual([]);
  });

  it('gives the English of Chinese words, but no related words of that English: two uncertain steps', () => {
    expect(lexiconTerms('我晚上十一点睡觉', lexicon, 'memory')).toEqual(['bed', 'sleep']);
    expect(lexiconTerms('我几点休息', lexicon, 'question')).toEqual(['rest']);
  });

  it('gives nothing without a lexicon', () => {
    expect(lexiconTerms('My flight lands at 6', undefined, 'memory')).toEqual([]);
  });
});

describe('termsInDictionaryForm', () => {
  it("searches a question's words in their dictionary form, which a memory is indexed with too", () => {
    expect(termsInDictionaryForm('When do I arriv?', lexicon)).toEqual(['arrive']);
    expect(termsInDictionaryForm('Which physician lands?', lexicon)).toEqual(['physician', 'land']);
    // A memory that says "arriv" is indexed as "arriv" and "arrive": the question's word counts once.
    const memory = new Set([...tokenize('I arriv'), ...lexiconTerms('I arriv', lexicon, 'memory')]);
    expect(termsInDictionaryForm('When do I arriv?', lexicon).filter((t) => memory.has(t))).toEqual(['arrive']);
    expect(termsInDictionaryForm('When do I arriv?', undefined)).toEqual(['arriv']);
  });
});

describe('thesaurusWords', () => {
  it('reads lowercased words that are not stop words, names (capitalised inside a sentence) left out', () => {
    expect(thesaurusWords('John lands at six. Then John says hi to John')).toEqual(['john', 'lands', 'six', 'says']);
    expect(thesaurusWords("I'm meeting Caroline's physician")).toEqual(['meeting', 'physician']);
  });

  it('looks no name up in the lexicon', () => {
    lexicon.asked.length = 0;
    lexiconTerms('I met John yesterday', lexicon, 'memory');
    expect(lexicon.asked).not.toContain('john');
  });
});

describe('heldThroughThesaurus', () => {
  it("holds a query term by its dictionary form, the memory's terms being read with their related words", () => {
    const held = new Set(['flight', 'land', 'lander', 'arrive']);
    expect(heldThroughThesaurus('arriv', held, lexicon)).toBe(true);
    expect(heldThroughThesaurus('arriv', held, undefined)).toBe(false);
    expect(heldThroughThesaurus('physician', new Set(['doctor']), lexicon)).toBe(false);
    expect(heldThroughThesaurus('休息', new Set(['rest']), lexicon)).toBe(false);
  });
});
