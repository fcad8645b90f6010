/**
 * What recall reads in a question besides its words, per language: data, not code paths. A new
 * phrasing is a new string or pattern here; `query-understanding.ts` only interprets them.
 *
 * Time patterns are regex sources (matched case-insensitively on the NFKC-folded question) with
 * the window they name, relative to when the question is asked:
 * - `{ unit, offset }`: the calendar day/week/month/year `offset` units before now's (0 = this one);
 * - `{ ago: unit }`: the group `count` is a count ("3 weeks ago", "三天前"): that day/week/…;
 * - `{ month: true }`: the group `month` is a month (number, Han numeral or English name), an
 *   optional group `year` a year; without one, `yearOffset` years before now's ("去年五月"), else the
 *   last such month up to now ("in May").
 */
export type TimeUnit = 'day' | 'week' | 'month' | 'year';

export type TimeRule =
  | { readonly pattern: string; readonly unit: TimeUnit; readonly offset: number }
  | { readonly pattern: string; readonly ago: TimeUnit }
  | { readonly pattern: string; readonly month: true; readonly yearOffset?: number };

export interface QueryLanguagePack {
  /** The question is about what the assistant said: its turns rank first. */
  readonly assistantCues: readonly string[];
  readonly time: readonly TimeRule[];
}

export const defaultQueryLanguagePacks: Readonly<Record<'zh' | 'en', QueryLanguagePack>> = {
  zh: {
    assistantCues: ['你推荐', '你给我推荐', '你建议', '你给我建议', '你说过', '你提到', '你告诉我', '你给的', '你之前说', '你给我的建议', '你让我'],
    time: [
      { pattern: '今天', unit: 'day', offset: 0 },
      { pattern: '昨天', unit: 'day', offset: 1 },
      { pattern: '前天', unit: 'day', offset: 2 },
      { pattern: '(?:这|本)(?:周|个?星期|个?礼拜)', unit: 'week', offset: 0 },
      { pattern: '上(?:周|个?星期|个?礼拜)', unit: 'week', offset: 1 },
      { pattern: '(?:这|本)个?月', unit: 'month', offset: 0 },
      { pattern: '上个?月', unit: 'month', offset: 1 },
      { pattern: '今年(?![一二三四五六七八九十\\d]+月)', unit: 'year', offset: 0 },
      { pattern: '去年(?![一二三四五六七八九十\\d]+月)', unit: 'year', offset: 1 },
      { pattern: '(?<count>\\d+|[一二三四五六七八九十两]+)\\s*天前', ago: 'day' },
      { pattern: '(?<count>\\d+|[一二三四五六七八九十两]+)\\s*(?:周|个星期)前', ago: 'week' },
      { pattern: '(?<count>\\d+|[一二三四五六七八九十两]+)\\s*个月前', ago: 'month' },
      { pattern: '(?<year>\\d{4})\\s*年\\s*(?<month>\\d{1,2}|[一二三四五六七八九十]+)\\s*月', month: true },
      { pattern: '去年\\s*(?<month>\\d{1,2}|[一二三四五六七八九十]+)\\s*月', month: true, yearOffset: 1 },
      { pattern: '今年\\s*(?<month>\\d{1,2}|[一二三四五六七八九十]+)\\s*月', month: true, yearOffset: 0 },
    ],
  },
  en: {
    assistantCues: [
      'you recommend', 'you recommended', 'did you recommend', 'you suggest', 'you suggested', 'did you suggest',
      'you told me', 'did you tell me', 'you said', 'you mentioned', 'your tip', 'your advice', 'your suggestion',
      'your recommendation', 'you advised', 'you proposed',
    ],
    time: [
      { pattern: '\\btoday\\b', unit: 'day', offset: 0 },
      { pattern: '\\byesterday\\b', unit: 'day', offset: 1 },
      { pattern: '\\bthis week\\b', unit: 'week', offset: 0 },
      { pattern: '\\blast week\\b', unit: 'week', offset: 1 },
      { pattern: '\\bthis month\\b', unit: 'month', offset: 0 },
      { pattern: '\\blast month\\b', unit: 'month', offset: 1 },
      { pattern: '\\bthis year\\b', unit: 'year', offset: 0 },
      { pattern: '\\blast year\\b', unit: 'year', offset: 1 },
      { pattern: '\\b(?<count>\\d+|one|two|three|four|five|six)\\s+days?\\s+ago\\b', ago: 'day' },
      { pattern: '\\b(?<count>\\d+|one|two|three|four|five|six)\\s+weeks?\\s+ago\\b', ago: 'week' },
      { pattern: '\\b(?<count>\\d+|one|two|three|four|five|six)\\s+months?\\s+ago\\b', ago: 'month' },
      {
        pattern: '\\b(?:in|during|of|since)\\s+(?<month>january|february|march|april|may|june|july|august|september|october|november|december)(?:\\s*,?\\s*(?<year>\\d{4}))?\\b',
        month: true,
      },
    ],
  },
};
