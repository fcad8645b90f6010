import { countTokens as countBpeTokens } from 'gpt-tokenizer';

/**
 * BM25 terms, computed once here so every search adapter (Elasticsearch, SQLite FTS5) and the
 * eval baseline rank exactly the same terms.
 *
 * - NFKC + lowercase, so full-width letters/digits and case never split a term.
 * - Latin text: words and numbers, stop words dropped, light stemming (plural, -ing, -ed).
 * - Chinese: `Intl.Segmenter` words PLUS character bigrams of every Han run. Segmentation of a
 *   statement ("数据库用 PostgreSQL") and of a later question ("用的什么数据库") often differs; the
 *   bigrams still overlap, which keeps recall robust.
 */

const HAN_RUN = /\p{Script=Han}+/u;
const CHUNK = /\p{Script=Han}+|[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

/** Grammatical words that carry no topic. Kept short on purpose: over-pruning hurts recall more. */
const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then so of to in on at by for with from as into about over after before ' +
    'is am are was were be been being do does did doing have has had having will would shall should can could ' +
    'may might must i me my mine we us our ours you your yours he him his she her hers it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any some no not ' +
    "very just also too than such only own same again once i'm i've i'd i'll you're we're it's that's " +
    "don't doesn't didn't isn't aren't wasn't can't won't let's please ok okay yes yeah hi hello thanks"
  ).split(/\s+/),
);

/** Function words and particles; single Han characters that never help ranking. */
const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set([
  '的',
  '了',
  '是',
  '我',
  '你',
  '他',
  '她',
  '它',
  '吗',
  '呢',
  '吧',
  '啊',
  '呀',
  '哦',
  '嗯',
  '么',
  '什么',
  '我们',
  '你们',
  '他们',
  '这',
  '那',
  '这个',
  '那个',
  '就',
  '都',
  '也',
  '还',
  '在',
  '和',
  '与',
  '及',
  '或',
  '被',
  '把',
  '给',
  '对',
  '着',
  '过',
  '得',
  '地',
  '之',
  '而',
  '又',
  '很',
  '一个',
  '怎么',
  '哪',
  '哪个',
  '有',
  '没有',
  '不',
  '要',
  '会',
  '能',
  '可以',
  '一下',
  '一些',
  '上次',
  '之前',
  // Pronoun + particle words the segmenter keeps whole: they occur in most turns of a user.
  '我的',
  '我是',
  '你的',
  '说的',
  '我们的',
]);

/** A Chinese function word or particle (什么, 一下, 我们): no topic of its own, so nothing to translate either. */
export function isChineseStopWord(word: string): boolean {
  return CHINESE_STOP_WORDS.has(word);
}

const zhSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * The same text is tokenised again and again: a turn as its episode's content and as the next turn's
 * context key, a memory at every recall that ranks it. Segmenting Chinese is the expensive part, so
 * the terms of recent short texts are kept (a bounded map, oldest out first); callers get a copy.
 */
const MEMO_ENTRIES = 8192;
const MEMO_MAX_CHARS = 2000;
const memo = new Map<string, readonly string[]>();

export function tokenize(text: string): string[] {
  if (text.length > MEMO_MAX_CHARS) return terms(text);
  let cached = memo.get(text);
  if (cached === undefined) {
    cached = terms(text);
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
    memo.set(text, cached);
  }
  return [...cached];
}

/** `tokenize` without keeping the result: for text read once (a dictionary's senses), which would only push out what recurs. */
export function tokenizeOnce(text: string): string[] {
  return terms(text);
}

function terms(text: string): string[] {
  const normalised = text.normalize('NFKC').toLowerCase().replace(/[’‘]/g, "'");
  const terms: string[] = [];
  for (const [chunk] of normalised.matchAll(CHUNK)) {
    if (HAN_RUN.test(chunk)) terms.push(...hanTerms(chunk));
    else terms.push(...latinTerms(chunk));
  }
  return terms;
}

function hanTerms(run: string): string[] {
  const words = [...zhSegmenter.segment(run)]
    .filter((s) => s.isWordLike)
    .map((s) => s.segment)
    .filter((w) => !CHINESE_STOP_WORDS.has(w));
  // A bigram that the segmenter already produced as a word would double its term frequency.
  const wordSet = new Set(words);
  const bigrams: string[] = [];
  const chars = [...run];
  for (let i = 0; i + 1 < chars.length; i++) {
    // Bigrams across a particle ("们的", "栈是") straddle word boundaries: pure noise.
    if (CHINESE_STOP_WORDS.has(chars[i]) || CHINESE_STOP_WORDS.has(chars[i + 1])) continue;
    const bigram = chars[i] + chars[i + 1];
    if (!wordSet.has(bigram)) bigrams.push(bigram);
  }
  return [...words, ...bigrams];
}

function latinTerms(word: string): string[] {
  if (ENGLISH_STOP_WORDS.has(word)) return [];
  const bare = word.replace(/'s$/, '').replace(/'/g, '');
  if (bare.length === 0 || ENGLISH_STOP_WORDS.has(bare)) return [];
  return [stem(bare)];
}

/** Deliberately light: the same word in a statement and in a question must meet, nothing more. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  // A stem needs a vowel ("spring", "bring" are not verbs + -ing) and some length ("based").
  if (word.endsWith('ing') && word.length >= 6 && hasVowel(word.slice(0, -3))) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && !word.endsWith('eed') && word.length >= 6 && hasVowel(word.slice(0, -2))) {
    return undouble(word.slice(0, -2));
  }
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function hasVowel(stemmed: string): boolean {
  return /[aeiouy]/.test(stemmed);
}

function undouble(stemmed: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(stemmed) && !/(ll|ss|zz)$/.test(stemmed) ? stemmed.slice(0, -1) : stemmed;
}

/**
 * Tokens as the LLM will count them (o200k BPE), used for context budgets. Special-token
 * text such as "<|endoftext|>" inside user content is counted as plain text, never rejected.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return countBpeTokens(text, { disallowedSpecial: new Set() });
}
