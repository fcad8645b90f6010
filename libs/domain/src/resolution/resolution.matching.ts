// Comparing values and texts: one value said twice (amounts by number), text similarity over
// tokenize() terms (cached per text), and the shape of a value (amount, schedule, date, time, text).
import { amountToNumber, extractDate, extractRecurrence, isTimeOfDay } from '../text/text-values';
import { tokenize } from '../text/tokenizer';

/**
 * Values compare after NFKC, case and spacing are normalised, and money amounts compare by number:
 * "三万", "3万" and "30000" are one budget, so saying it again reinforces instead of superseding.
 */
export function sameValue(a: string, b: string): boolean {
  const amountA = amountToNumber(a);
  const amountB = amountToNumber(b);
  if (amountA !== null && amountB !== null) return amountA === amountB;
  return normaliseValue(a) === normaliseValue(b);
}

export function normaliseValue(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}]+/gu, '');
}

/** Jaccard over tokenize() terms, so Chinese and English measure alike; in [0, 1]. */
export function similarity(a: string, b: string): number {
  return jaccard(a, termsOf(a), b, termsOf(b));
}

/**
 * A text's term set as `[hash of its normalised form, ...ascending term ids]` (ids from `termIds`):
 * plain small-integer arrays are the most compact thing V8 keeps (a few hundred bytes a memory with
 * its key), so a user's whole memory list stays cached at 100k memories.
 */
export type Terms = readonly number[];

/**
 * Each text's terms, remembered: the resolver compares every new item with every active memory of
 * the same subject and kind, and tokenizing (Intl.Segmenter, bigrams) each memory again per item
 * was a fifth of ingest CPU. Keyed by the text itself, so it is exact; bounded (oldest out first).
 */
const TERMS_CACHE_SIZE = 250_000;
const termsCache = new Map<string, Terms>();
const termIds = new Map<string, number>();
const MAX_VOCABULARY = 2_000_000;

export function termsOf(text: string): Terms {
  const cached = termsCache.get(text);
  if (cached) return cached;
  if (termIds.size >= MAX_VOCABULARY) {
    // Ids are only meaningful with their dictionary: start both again (never reached by the bench).
    termIds.clear();
    termsCache.clear();
  }
  const ids = new Set<number>();
  for (const term of tokenize(text)) {
    let id = termIds.get(term);
    if (id === undefined) {
      id = termIds.size;
      termIds.set(term, id);
    }
    ids.add(id);
  }
  const terms = [hashOf(normaliseValue(text)), ...[...ids].sort((x, y) => x - y)];
  if (termsCache.size >= TERMS_CACHE_SIZE) termsCache.delete(termsCache.keys().next().value as string);
  termsCache.set(text, terms);
  return terms;
}

/** FNV-1a, 32 bits: only a shortcut, equal hashes are confirmed on the texts. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

export function sameNormalised(a: string, left: Terms, b: string, right: Terms): boolean {
  return left[0] === right[0] && normaliseValue(a) === normaliseValue(b);
}

/** How many terms two term sets share (the hash in front is not a term). */
export function sharedTerms(left: Terms, right: Terms): number {
  let shared = 0;
  for (let i = 1, j = 1; i < left.length && j < right.length;) {
    if (left[i] === right[j]) {
      shared++;
      i++;
      j++;
    } else if (left[i] < right[j]) i++;
    else j++;
  }
  return shared;
}

/** The terms two term sets share (sharedTerms counts them without a list: it runs for every item). */
export function sharedTermIds(left: Terms, right: Terms): number[] {
  const shared: number[] = [];
  for (let i = 1, j = 1; i < left.length && j < right.length;) {
    if (left[i] === right[j]) {
      shared.push(left[i]);
      i++;
      j++;
    } else if (left[i] < right[j]) i++;
    else j++;
  }
  return shared;
}

export function jaccard(a: string, left: Terms, b: string, right: Terms): number {
  if (sameNormalised(a, left, b, right)) return normaliseValue(a) === '' ? 0 : 1;
  if (left.length === 1 || right.length === 1) return 0;
  const shared = sharedTerms(left, right);
  return shared / (left.length - 1 + right.length - 1 - shared);
}

export type ValueShape = 'amount' | 'schedule' | 'date' | 'time' | 'text';

/** What kind of value a string is, when it is nothing but that value. */
export function valueShape(value: string): ValueShape {
  const bare = value.trim();
  if (bare === '') return 'text';
  if (amountToNumber(bare) !== null) return 'amount';
  if (extractRecurrence(bare)?.value === bare) return 'schedule';
  if (extractDate(bare) === bare) return 'date';
  if (isTimeOfDay(bare)) return 'time';
  return 'text';
}
