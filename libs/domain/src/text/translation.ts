import type { Lexicon } from '@engram/ports';
import { isChineseStopWord, tokenize } from './tokenizer';

/**
 * The English a text's Chinese words mean, as BM25 terms: what lets an English question find a
 * Chinese memory (the memory is indexed with them), a Chinese question find an English memory (the
 * question searches with them), and two Chinese wordings of one thing meet on their meaning
 * (拍照 "take a picture" and 商品照片 "photograph, picture" share "picture"). English text has none.
 *
 * The words are the lexicon's own: each run of Chinese characters is cut into the longest words the
 * lexicon holds, left to right (the segmenter's words are not the dictionary's: it cuts 红眼航班 into
 * four single characters, where the dictionary knows 航班 "flight"). Only words of two characters or more are
 * read: a character alone has many meanings and its first senses are seldom the one meant (车 is
 * "car" and "chariot", 额 "forehead", 度 "to pass"); nor are question words (多少 "how many").
 * Deduplicated; terms the text already holds are left out.
 */
export function translatedTerms(text: string, lexicon: Lexicon | undefined): string[] {
  if (!lexicon || !HAN.test(text)) return [];
  let byText = memos.get(lexicon);
  if (!byText) {
    byText = new Map();
    memos.set(lexicon, byText);
  }
  if (text.length > MEMO_MAX_CHARS) return translation(text, lexicon);
  let cached = byText.get(text);
  if (cached === undefined) {
    cached = translation(text, lexicon);
    if (byText.size >= MEMO_ENTRIES) byText.delete(byText.keys().next().value as string);
    byText.set(text, cached);
  }
  return [...cached];
}

function translation(text: string, lexicon: Lexicon): string[] {
  const own = new Set(tokenize(text));
  const out = new Set<string>();
  for (const word of lexiconWords(text, lexicon)) {
    for (const sense of lexicon.sensesOf(word) ?? []) for (const gloss of sense) if (!own.has(gloss)) out.add(gloss);
  }
  return [...out];
}

/**
 * The words of two characters or more the lexicon holds, longest first from the left (forward maximum
 * matching, up to `LONGEST_WORD` characters); a word of four characters or more is also read as its
 * own words (笔记本电脑 "laptop" is also 电脑 "computer", which 手提电脑 "portable computer" says too).
 */
export function lexiconWords(text: string, lexicon: Lexicon): string[] {
  const words: string[] = [];
  const longest = Math.min(lexicon.longestWord, LONGEST_WORD);
  for (const [run] of text.normalize('NFKC').matchAll(HAN_RUNS)) {
    for (const word of longestWords(run, lexicon, longest)) {
      if (unglossed(word)) continue;
      words.push(word);
      const length = [...word].length;
      if (length >= 4) words.push(...longestWords(word, lexicon, length - 1).filter((part) => !unglossed(part)));
    }
  }
  return words;
}

/**
 * Entries longer than this are set phrases and proverbs, which a chat seldom quotes whole; looking
 * for them would try every length up to the dictionary's longest (19) at every character.
 */
const LONGEST_WORD = 8;

function longestWords(run: string, lexicon: Lexicon, longest: number): string[] {
  // Code unit offsets of the run's characters (a Han character beyond the BMP takes two).
  const at: number[] = [];
  for (let i = 0; i < run.length; i += (run.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) at.push(i);
  at.push(run.length);
  const chars = at.length - 1;
  const words: string[] = [];
  let from = 0;
  while (from < chars) {
    let length = Math.min(longest, chars - from);
    for (; length >= 2; length--) {
      if (lexicon.sensesOf(run.slice(at[from], at[from + length])) !== undefined) break;
    }
    if (length >= 2) {
      words.push(run.slice(at[from], at[from + length]));
      from += length;
    } else from++;
  }
  return words;
}

/**
 * Whether a query term is held in a memory's terms in either language: as written, or, for a word the
 * lexicon glosses (two characters or more, not a function or question word), by a word of one of its
 * senses (a question's 照片 is held by "the product photographs", 拍照 "take a picture" by 商品照片's
 * "picture", 航班 "scheduled flight" by "my flight"). `held` is the memory's own terms plus its
 * translated ones, so an English term is held by a Chinese memory that means it.
 */
export function heldInEitherLanguage(term: string, held: ReadonlySet<string>, lexicon: Lexicon | undefined): boolean {
  if (held.has(term)) return true;
  if (!lexicon || !HAN.test(term) || [...term].length < 2 || unglossed(term)) return false;
  return (lexicon.sensesOf(term) ?? []).some((sense) => sense.some((word) => held.has(word)));
}

const HAN = /\p{Script=Han}/u;
const HAN_RUNS = /\p{Script=Han}+/gu;

/** Function words (the tokenizer's stop words) and question words: no topic ("我的额度是多少" is not about amounts). */
const QUESTION_WORDS: ReadonlySet<string> = new Set([
  '多少',
  '哪些',
  '哪里',
  '哪儿',
  '为什么',
  '怎么样',
  '怎样',
  '如何',
  '什么样',
  '什么时候',
  '什么地方',
  '多久',
  '几个',
  '几点',
]);

function unglossed(word: string): boolean {
  return isChineseStopWord(word) || QUESTION_WORDS.has(word);
}

/** Recall translates the same memories at every question that ranks them: the latest texts are kept per lexicon. */
const MEMO_ENTRIES = 8192;
const MEMO_MAX_CHARS = 2000;
const memos = new WeakMap<Lexicon, Map<string, readonly string[]>>();
