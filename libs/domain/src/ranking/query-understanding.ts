import type { MemoryRecord } from '@engram/contracts';
import { hasCue } from '../text/cue-matching';
import {
  defaultQueryLanguagePacks,
  type AnswerKind,
  type QueryLanguagePack,
  type TimeRule,
  type TimeUnit,
} from './query-understanding.config';
import type { RankingQuery } from './ranking';
import { referenceAskedFor } from './references';
import { tokenize } from '../text/tokenizer';

/**
 * Reads what a question asks for besides its words (see `RankingQuery`): the speakers it names
 * (among the speakers the user's memories know), whether it asks what the assistant said, the
 * time window it names, resolved against when it is asked, whether it asks for a time of day or
 * a date, and whether it points back at something said before (references.ts). Every language pack is read: a Chinese question may name an English month and the other
 * way round.
 */
export function understandQuery(
  query: string,
  now: Date,
  knownSpeakers: readonly string[] = [],
  packs: Readonly<Record<string, QueryLanguagePack>> = defaultQueryLanguagePacks,
): RankingQuery {
  const terms = tokenize(query);
  const speakers = namedSpeakers(terms, knownSpeakers);
  const all = Object.values(packs);
  const assistant = all.some((pack) => hasCue(query, pack.assistantCues));
  const window = timeWindowOf(
    query,
    now,
    all.flatMap((pack) => pack.time),
  );
  const answer = answerAskedFor(query, all);
  const reference = referenceAskedFor(query, all);
  return {
    terms,
    ...(speakers.length > 0 ? { speakers } : {}),
    ...(assistant ? { assistant } : {}),
    ...(window ? { window } : {}),
    ...(answer ? { answer } : {}),
    ...(reference ? { reference } : {}),
  };
}

/**
 * What kind of answer the question asks for, and the shapes of text that hold one (see
 * `QueryLanguagePack.shapes`): a time of day first ("what time" also says "when"), else a date,
 * which a time of day answers too. Null when it asks for neither.
 */
export function answerAskedFor(query: string, packs: readonly QueryLanguagePack[]): { kind: AnswerKind; shapes: RegExp[] } | null {
  const text = query.normalize('NFKC').toLowerCase();
  const compiled = packs.map(compiledAnswers);
  const asks = (kind: AnswerKind) => compiled.some((pack) => pack.asks[kind].some((pattern) => pattern.test(text)));
  const shapes = (...kinds: AnswerKind[]) => compiled.flatMap((pack) => kinds.flatMap((kind) => pack.shapes[kind]));
  if (asks('time')) return { kind: 'time', shapes: shapes('time') };
  if (asks('date')) return { kind: 'date', shapes: shapes('date', 'time') };
  return null;
}

type CompiledAnswers = {
  readonly asks: Readonly<Record<AnswerKind, readonly RegExp[]>>;
  /** One alternation per kind: a memory is tested once per pack and kind, not once per pattern. */
  readonly shapes: Readonly<Record<AnswerKind, readonly RegExp[]>>;
};

/** A pack's answer patterns compiled once per pack (every recall reads them; they never change). */
const compiledPacks = new WeakMap<QueryLanguagePack, CompiledAnswers>();

function compiledAnswers(pack: QueryLanguagePack): CompiledAnswers {
  let compiled = compiledPacks.get(pack);
  if (!compiled) {
    const compile = (patterns: Readonly<Record<AnswerKind, readonly string[]>>) => ({
      time: patterns.time.map((pattern) => new RegExp(pattern, 'iu')),
      date: patterns.date.map((pattern) => new RegExp(pattern, 'iu')),
    });
    const alternation = (patterns: readonly string[]) =>
      patterns.length > 0 ? [new RegExp(patterns.map((p) => `(?:${p})`).join('|'), 'iu')] : [];
    compiled = { asks: compile(pack.asks), shapes: { time: alternation(pack.shapes.time), date: alternation(pack.shapes.date) } };
    compiledPacks.set(pack, compiled);
  }
  return compiled;
}

/** The speakers memories were said by: the names a question may steer to. */
export function speakersOf(memories: readonly Pick<MemoryRecord, 'speaker'>[]): string[] {
  return [...new Set(memories.flatMap((m) => (m.speaker ? [m.speaker] : [])))];
}

/**
 * The known speakers whose name is among the question's terms. Naming every speaker there is
 * ("What did Caroline and Melanie both like?") steers nothing, so it returns none.
 */
export function namedSpeakers(queryTerms: readonly string[], knownSpeakers: readonly string[]): string[] {
  const terms = new Set(queryTerms);
  const known = [...new Set(knownSpeakers)];
  const named = known.filter((speaker) => {
    const words = tokenize(speaker);
    return words.length > 0 && words.every((w) => terms.has(w));
  });
  return named.length < known.length ? named : [];
}

/** The first time expression of the question as a [from, to) window in UTC, or null. */
export function timeWindowOf(query: string, now: Date, rules: readonly TimeRule[]): { from: string; to: string } | null {
  const text = query.normalize('NFKC').toLowerCase();
  let best: { index: number; length: number; window: [Date, Date] } | null = null;
  for (const rule of rules) {
    const match = new RegExp(rule.pattern, 'iu').exec(text);
    if (!match) continue;
    const window = resolve(rule, match, now);
    if (!window) continue;
    // The leftmost match wins; at the same place the longer one ("去年五月" over "去年").
    if (!best || match.index < best.index || (match.index === best.index && match[0].length > best.length)) {
      best = { index: match.index, length: match[0].length, window };
    }
  }
  return best ? { from: best.window[0].toISOString(), to: best.window[1].toISOString() } : null;
}

function resolve(rule: TimeRule, match: RegExpExecArray, now: Date): [Date, Date] | null {
  if ('unit' in rule) return unitWindow(rule.unit, now, rule.offset);
  if ('ago' in rule) {
    const count = numberOf(match.groups?.count);
    return count === null ? null : unitWindow(rule.ago, now, count);
  }
  const month = monthOf(match.groups?.month);
  if (month === null) return null;
  const thisYear = now.getUTCFullYear();
  let year: number;
  if (match.groups?.year) year = Number(match.groups.year);
  else if (rule.yearOffset !== undefined) year = thisYear - rule.yearOffset;
  else year = month <= now.getUTCMonth() ? thisYear : thisYear - 1; // the last such month up to now
  return [new Date(Date.UTC(year, month, 1)), new Date(Date.UTC(year, month + 1, 1))];
}

/** The calendar unit `offset` units before the one holding `now` (weeks start on Monday). */
function unitWindow(unit: TimeUnit, now: Date, offset: number): [Date, Date] {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (unit) {
    case 'day':
      return [new Date(Date.UTC(y, m, d - offset)), new Date(Date.UTC(y, m, d - offset + 1))];
    case 'week': {
      const monday = d - ((now.getUTCDay() + 6) % 7) - 7 * offset;
      return [new Date(Date.UTC(y, m, monday)), new Date(Date.UTC(y, m, monday + 7))];
    }
    case 'month':
      return [new Date(Date.UTC(y, m - offset, 1)), new Date(Date.UTC(y, m - offset + 1, 1))];
    case 'year':
      return [new Date(Date.UTC(y - offset, 0, 1)), new Date(Date.UTC(y - offset + 1, 0, 1))];
  }
}

const ENGLISH_NUMBERS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const HAN_DIGITS: Readonly<Record<string, number>> = { 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "3", "three", "三", "十二" → the number; null when unreadable. */
function numberOf(text: string | undefined): number | null {
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  if (text in ENGLISH_NUMBERS) return ENGLISH_NUMBERS[text];
  // Han numerals up to 99: 十 = 10, 十二 = 12, 二十 = 20, 二十三 = 23.
  const m = /^([一二两三四五六七八九])?(十)?([一二三四五六七八九])?$/u.exec(text);
  if (!m || (!m[1] && !m[2])) return null;
  if (!m[2]) return HAN_DIGITS[m[1]!];
  return (m[1] ? HAN_DIGITS[m[1]] : 1) * 10 + (m[3] ? HAN_DIGITS[m[3]] : 0);
}

/** A month as 0–11 from a number (1–12), a Han numeral or an English name; null otherwise. */
function monthOf(text: string | undefined): number | null {
  if (!text) return null;
  const named = MONTHS.indexOf(text);
  if (named >= 0) return named;
  const n = numberOf(text);
  return n !== null && n >= 1 && n <= 12 ? n - 1 : null;
}
