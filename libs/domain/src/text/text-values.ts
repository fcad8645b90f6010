import { escapeRegExp } from './cue-matching';
import type { CatalogEntry } from '../rules/catalog';

/**
 * Value shapes the rule extractor recognises in either language: money amounts, dates,
 * recurring schedules, known products, proper nouns. Pure string functions, no state.
 */

const CN_DIGIT = '零〇一二两三四五六七八九十百千';
const CN_NUMBER = `[${CN_DIGIT}]+(?:点[${CN_DIGIT}]+)?`;
const AR_NUMBER = String.raw`\d+(?:[,，]\d{3})*(?:\.\d+)?`;

const AMOUNT = new RegExp(
  String.raw`(?:[$¥￥€£]\s?)?(?:${AR_NUMBER}|${CN_NUMBER})\s?(?:百万|千万|万|千|百|亿|[kKwWmM](?![a-zA-Z]))?` +
    String.raw`\s?(?:块钱|块|元|人民币|美元|美金|刀|rmb|RMB|CNY|USD|usd|dollars?|bucks|euros?)?`,
  'gu',
);

/** A money amount, e.g. "三万", "5万", "50k", "$3,000", "2000 元". */
export function extractAmount(text: string): string | null {
  for (const [match] of text.matchAll(AMOUNT)) {
    const amount = match.trim();
    const hasUnit = /[百]/.test(amount) || isMoneyShaped(amount);
    const isNumber = /\d/.test(amount) || new RegExp(`[${CN_DIGIT}]`).test(amount);
    // A bare small number ("2", "两") is rarely an amount; a unit or four digits makes it one.
    if (isNumber && (hasUnit || /\d{3,}/.test(amount))) return amount;
  }
  return null;
}

/**
 * An amount said the way money is ("五万", "50k", "$500", "三千块"): a currency or a magnitude. A
 * plain number ("100", "301") is not, whatever its length: "改成世纪大道100号", "room 301".
 */
export function isMoneyShaped(amount: string): boolean {
  return /[万千亿kKwWmM$¥￥€£元块刀]|rmb|cny|usd|dollar|buck|euro/i.test(amount);
}

const CN_DIGIT_VALUES: Readonly<Record<string, number>> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const CN_SMALL_UNITS: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000 };
const MAGNITUDES: Readonly<Record<string, number>> = {
  k: 1e3,
  K: 1e3,
  千: 1e3,
  w: 1e4,
  W: 1e4,
  万: 1e4,
  百万: 1e6,
  千万: 1e7,
  m: 1e6,
  M: 1e6,
  亿: 1e8,
};

/**
 * The number behind an amount ("三万" → 30000, "3.5万" → 35000, "50k" → 50000, "$3,000" → 3000),
 * or null when the text is not one amount. Lets "预算三万" and "预算3万" count as the same value.
 */
export function amountToNumber(text: string): number | null {
  const m =
    /^\s*[$¥￥€£]?\s*(?<num>[\d,，.]+|[零〇一二两三四五六七八九十百千]+)\s*(?<mag>百万|千万|万|千|亿|[kKwWmM])?\s*(?:块钱|块|元|人民币|美元|美金|刀|rmb|cny|usd|dollars?|bucks|euros?)?\s*$/iu.exec(
      text.normalize('NFKC'),
    );
  if (!m?.groups) return null;
  const digits = m.groups.num.replace(/[,，]/g, '');
  const base = /^[\d.]+$/.test(digits) ? Number(digits) : chineseInteger(digits);
  if (base === null || Number.isNaN(base)) return null;
  return Math.round(base * (m.groups.mag ? (MAGNITUDES[m.groups.mag] ?? 1) : 1) * 100) / 100;
}

/** Chinese numerals below 10 000 ("三千五百", "十二", "两"); larger units are magnitudes above. */
function chineseInteger(text: string): number | null {
  let total = 0;
  let digit = 0;
  for (const ch of text) {
    if (ch in CN_DIGIT_VALUES) digit = CN_DIGIT_VALUES[ch];
    else if (ch in CN_SMALL_UNITS) {
      total += (digit || 1) * CN_SMALL_UNITS[ch];
      digit = 0;
    } else return null;
  }
  return total + digit;
}

const CN_WEEKDAY = '(?:周|星期|礼拜)[一二三四五六日天]';
const CN_DAY_TIME = `(?:(?:上午|下午|晚上|早上|中午|傍晚|凌晨)?[${CN_DIGIT}\\d]{1,3}点(?:半|[${CN_DIGIT}\\d]{1,3}分?)?)`;
const EN_WEEKDAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)day';
const EN_MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*';
const EN_TIME = String.raw`(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)`;

const DATE = new RegExp(
  [
    `(?:下下?|这|本|上)?(?:个)?${CN_WEEKDAY}(?:${CN_DAY_TIME})?`,
    // "10 月 18 号", "明年 1 月 10 号": people type spaces around the digits.
    `(?:(?:\\d{4}\\s?年|明年|今年|去年)\\s?)?(?:\\d{1,2}|[${CN_DIGIT}]{1,3})\\s?月\\s?(?:\\d{1,2}|[${CN_DIGIT}]{1,3})\\s?[日号](?:${CN_DAY_TIME})?`,
    `(?:今天|明天|后天|大后天|今晚|明晚|月底|月初|月中|年底|年初|周末|下周|下个月|本周|这周|下周末)(?:${CN_DAY_TIME})?`,
    String.raw`\d{4}-\d{1,2}-\d{1,2}`,
    String.raw`\d{1,2}/\d{1,2}(?:/\d{2,4})?`,
    `(?:next |this )?${EN_WEEKDAY}(?:\\s+(?:at\\s+)?${EN_TIME})?`,
    `${EN_MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?`,
    String.raw`\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?` + EN_MONTH,
    String.raw`(?:tomorrow|today|tonight|next week|next month|end of (?:the )?(?:day|week|month|year|quarter)|eod|eow)`,
  ].join('|'),
  'iu',
);

/** A date or day expression: "周五", "下周三", "3月1日", "Friday", "end of month". */
export function extractDate(text: string): string | null {
  const m = DATE.exec(text);
  return m ? m[0].trim() : null;
}

const RECURRENCE = new RegExp(
  [
    // "每周二、四、六", "周一三五": several weekdays in one schedule.
    `每?(?:个)?(?:周|星期|礼拜)[一二三四五六日天](?:[、，,和及与]?\\s*[一二三四五六日天])+(?:${CN_DAY_TIME})?`,
    `每(?:个)?(?:${CN_WEEKDAY}|周[一二三四五六日天]?|星期[一二三四五六日天]?|天|日|月(?:\\d{1,2}号)?|年|个?工作日|晚|早)(?:和[一二三四五六日天])?(?:${CN_DAY_TIME})?`,
    `(?:工作日|周末)(?:${CN_DAY_TIME})`,
    `every\\s+(?:other\\s+)?(?:${EN_WEEKDAY}|day|weekday|week|month|morning|evening|night)(?:\\s+(?:at\\s+)?${EN_TIME})?`,
    `(?:on\\s+)?${EN_WEEKDAY}s(?:\\s+(?:at\\s+)?${EN_TIME})?`,
    `(?:daily|weekly|monthly)(?:\\s+(?:at\\s+)?${EN_TIME})?`,
  ].join('|'),
  'iu',
);

const TIME_OF_DAY = new RegExp(`^(?:${CN_DAY_TIME}|(?:at\\s+)?${EN_TIME})$`, 'iu');

/** Whether the text is only a time of day: "8点", "下午三点半", "9am", "10:30", "noon". */
export function isTimeOfDay(text: string): boolean {
  return TIME_OF_DAY.test(text.trim());
}

/** A recurring time: "每周三下午两点", "every Monday at 10am", "on Tuesdays". */
export function extractRecurrence(text: string): { value: string; index: number } | null {
  const m = RECURRENCE.exec(text);
  if (!m) return null;
  let value = m[0].trim();
  // "每周三 下午两点" / "every Monday, 10am": pick up a time that follows after a space.
  const after = text.slice(m.index + m[0].length);
  const time = new RegExp(`^\\s*(?:at\\s+)?(${CN_DAY_TIME}|${EN_TIME})`, 'iu').exec(after);
  if (time && !new RegExp(CN_DAY_TIME + '|' + EN_TIME, 'iu').test(value)) value = `${value} ${time[1]}`;
  return { value: value.replace(/^on\s+/i, ''), index: m.index };
}

// ---- known products --------------------------------------------------------------------------

export interface CatalogMatch {
  readonly entry: CatalogEntry;
  readonly index: number;
  readonly end: number;
}

interface CompiledEntry {
  readonly entry: CatalogEntry;
  readonly re: RegExp;
  /** Lower-cased first words of its names: a text holding none of them cannot match (a cheap test before the regex). */
  readonly needles: readonly string[];
}

const catalogPatterns = new WeakMap<readonly CatalogEntry[], CompiledEntry[]>();

function compiledCatalog(catalog: readonly CatalogEntry[]): CompiledEntry[] {
  let compiled = catalogPatterns.get(catalog);
  if (!compiled) {
    compiled = catalog.map((entry) => {
      const names = [entry.name, ...(entry.aliases ?? [])].sort((a, b) => b.length - a.length);
      const alternatives = names.map((n) => escapeRegExp(n).replace(/\\?\s+/g, '\\s*'));
      // Latin names need boundaries ("Go" inside "Google" is not Go); CJK names do not.
      const source = `(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}+#])`;
      const needles = [...new Set(names.map((n) => n.trim().split(/\s+/)[0].toLowerCase()))];
      return { entry, re: new RegExp(source, entry.exactCase ? 'gu' : 'giu'), needles };
    });
    catalogPatterns.set(catalog, compiled);
  }
  return compiled;
}

/** Every known product in the text, in order of appearance, longest match first at a position. */
export function findCatalog(text: string, catalog: readonly CatalogEntry[]): CatalogMatch[] {
  const found: CatalogMatch[] = [];
  const lower = text.toLowerCase();
  for (const { entry, re, needles } of compiledCatalog(catalog)) {
    if (!needles.some((needle) => lower.includes(needle))) continue;
    for (const m of text.matchAll(re)) found.push({ entry, index: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  found.sort((a, b) => a.index - b.index || b.end - a.end);
  // Drop overlaps ("Spring Boot" wins over a nested match) and duplicates of the same product.
  const kept: CatalogMatch[] = [];
  for (const match of found) {
    const last = kept[kept.length - 1];
    if (last && match.index < last.end) continue;
    kept.push(match);
  }
  return kept;
}

/** The canonical spelling when the whole text is a known product ("postgres" → "PostgreSQL"). */
export function canonicalProduct(text: string, catalog: readonly CatalogEntry[]): string {
  const matches = findCatalog(text, catalog);
  const only = matches.length === 1 ? matches[0] : undefined;
  if (only && only.index === 0 && only.end === text.length) return only.entry.name;
  return text;
}

// ---- cleaning and slugs ----------------------------------------------------------------------

const EDGE_PUNCTUATION =
  /^[\s,，。.;；:：!！?？、~～"'“”‘’「」『』《》()（）\-—]+|[\s,，。.;；:：!！?？、~～"'“”‘’「」『』《》()（）\-—]+$/gu;

export function trimPunctuation(text: string): string {
  return text.replace(EDGE_PUNCTUATION, '');
}

/** Strips words from both ends until nothing more comes off. Latin words need a boundary. */
export function stripEdges(text: string, leading: readonly string[], trailing: readonly string[]): string {
  let value = trimPunctuation(text);
  let changed = true;
  while (changed && value.length > 0) {
    changed = false;
    for (const word of leading) {
      if (startsWithWord(value, word)) {
        value = trimPunctuation(value.slice(word.length));
        changed = true;
      }
    }
    for (const word of trailing) {
      if (endsWithWord(value, word)) {
        value = trimPunctuation(value.slice(0, value.length - word.length));
        changed = true;
      }
    }
  }
  return value;
}

function isLatin(ch: string | undefined): boolean {
  return ch !== undefined && /[\p{Script=Latin}\d]/u.test(ch);
}

function startsWithWord(text: string, word: string): boolean {
  if (text.length <= word.length || text.slice(0, word.length).toLowerCase() !== word.toLowerCase()) return false;
  return !(isLatin(word[word.length - 1]) && isLatin(text[word.length]));
}

function endsWithWord(text: string, word: string): boolean {
  const at = text.length - word.length;
  if (at <= 0 || text.slice(at).toLowerCase() !== word.toLowerCase()) return false;
  return !(isLatin(word[0]) && isLatin(text[at - 1]));
}

/** A stable attribute fragment: lowercase, NFKC, words joined by "-", at most 40 characters. */
export function slugify(text: string): string {
  return [
    ...trimPunctuation(text.normalize('NFKC').toLowerCase())
      .replace(/['’"“”「」《》]/g, '')
      .replace(/[^\p{L}\p{N}+#.]+/gu, '-')
      .replace(/^-+|-+$/g, ''),
  ]
    .slice(0, 40)
    .join('')
    .replace(/-+$/, '');
}

/** Quoted titles: 《书名》, “…”, "…", '…', 「…」. */
export function extractQuoted(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /《([^》]{1,60})》|“([^”]{2,80})”|「([^」]{1,60})」|"([^"]{2,80})"|(?<![A-Za-z])'([^']{2,80})'(?![A-Za-z])/gu,
  )) {
    const title = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '').trim();
    if (title) out.push(title);
  }
  return out;
}

/**
 * Latin proper nouns: runs of capitalised or digit-bearing words ("Designing Data-Intensive
 * Applications", "GPT-4o", "Stripe"), minus sentence-starting words like "I" or "The".
 */
export function extractProperNouns(text: string, config: { readonly notEntities: readonly string[] }): string[] {
  const stop = new Set(config.notEntities.map((w) => w.toLowerCase()));
  const out: string[] = [];
  const latin = String.raw`[\p{Script=Latin}\d]`;
  const word = String.raw`(?:[A-Z]${latin}*(?:[-.]${latin}+)*|\p{Script=Latin}+\d[\p{Script=Latin}\d-]*)`;
  const run = new RegExp(`(?<![\\p{L}\\p{N}])${word}(?:\\s+(?:of\\s+|the\\s+|and\\s+)?${word})*`, 'gu');
  for (const [match] of text.matchAll(run)) {
    const words = match.split(/\s+/);
    while (words.length > 0 && stop.has(words[0].replace(/[’]/g, "'").toLowerCase())) words.shift();
    const noun = words.join(' ');
    if (noun && !/^\d+(?:am|pm|k|m|w|st|nd|rd|th)?$/i.test(noun) && !stop.has(noun.toLowerCase())) out.push(noun);
  }
  return out;
}

/** Case-insensitive de-duplication that keeps the first spelling and drops parts of kept values. */
export function uniqueCaseless(values: readonly string[]): string[] {
  const kept: string[] = [];
  for (const value of values) {
    const key = value.toLowerCase();
    if (value && !kept.some((k) => k.toLowerCase().includes(key))) kept.push(value);
  }
  return kept;
}
