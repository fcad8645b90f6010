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
 *
 * Answer shapes: a question that asks for a time of day ("what time", "几点") or a date ("when",
 * "哪天") is answered by a memory that holds one ("20:55", "7 点"; "January 8", "周一三五", "yesterday").
 * `asks` are regex sources matched on the question, `shapes` on a memory's content, both
 * case-insensitively on NFKC-folded text; every pack's shapes count whatever the question's
 * language ("几点起飞" is answered by "7:40"). A question asking for a date is also answered by a
 * time of day ("When does my flight leave?" — "20:55").
 */
export type AnswerKind = 'time' | 'date';

/**
 * What a question may point back at (see `references` below): a decision or plan, what the
 * assistant recommended, or what the user asked to remember (`referentFamiliesOf`, ranking/references.ts).
 */
export const REFERENT_FAMILIES = ['plan', 'recommendation', 'remembered'] as const;
export type ReferentFamily = (typeof REFERENT_FAMILIES)[number];

/**
 * References: "就按上次说的办吧", "Remind me of the plan we discussed", "我之前让你记的那个配置项", "那个方案后来
 * 怎么样了". `families` are cue lists (`hasCue`: Latin on word boundaries, Chinese as substrings),
 * `back` and `followUp` regex sources, all matched on the NFKC-folded, lower-cased question.
 */
export interface ReferenceCues {
  /** The question points back at something said in an earlier conversation ("上次说的", "we discussed"). Regex sources, as `asks`. */
  readonly back: readonly string[];
  /** It asks what came of it ("后来怎么样了", "how did it go"): a reference too. Regex sources, as `asks`. */
  readonly followUp: readonly string[];
  /** The words naming what it points back at, per family; a reference naming none points at all of them. */
  readonly families: Readonly<Record<ReferentFamily, readonly string[]>>;
  /**
   * Words the lines of each family hold ("推荐…", "remember that…"), added to a reference's lexical
   * search with the attribute words its turns' episodes are keyed by (`expandReference`).
   */
  readonly keys: Readonly<Record<ReferentFamily, readonly string[]>>;
}
export type TimeUnit = 'day' | 'week' | 'month' | 'year';

export type TimeRule =
  | { readonly pattern: string; readonly unit: TimeUnit; readonly offset: number }
  | { readonly pattern: string; readonly ago: TimeUnit }
  | { readonly pattern: string; readonly month: true; readonly yearOffset?: number };

export interface QueryLanguagePack {
  /** The question is about what the assistant said: its turns rank first. */
  readonly assistantCues: readonly string[];
  readonly time: readonly TimeRule[];
  /** Questions asking for a time of day or a date (see the top of this file). */
  readonly asks: Readonly<Record<AnswerKind, readonly string[]>>;
  /** What a memory answering them holds. */
  readonly shapes: Readonly<Record<AnswerKind, readonly string[]>>;
  readonly references: ReferenceCues;
}

export const defaultQueryLanguagePacks: Readonly<Record<'zh' | 'en', QueryLanguagePack>> = {
  zh: {
    assistantCues: [
      '你推荐',
      '你给我推荐',
      '你建议',
      '你给我建议',
      '你说过',
      '你提到',
      '你告诉我',
      '你给的',
      '你之前说',
      '你给我的建议',
      '你让我',
    ],
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
    asks: {
      time: ['几点', '什么时间', '几时'],
      date: ['什么时候', '哪天', '哪一天', '哪几天', '几号', '几月', '哪年', '哪一年', '哪个月', '何时', '(?:周|星期|礼拜)几'],
    },
    shapes: {
      // "一点" is mostly "a little": a Han-numeral hour starts at 两.
      time: ['(?:\\d{1,2}|[两三四五六七八九十]|十[一二])\\s*点'],
      date: [
        '\\d{1,2}\\s*月',
        '\\d{1,2}\\s*[号日]',
        '[一二三四五六七八九十]+月',
        '周[一二三四五六日末]',
        '星期',
        '礼拜',
        '昨天',
        '今天',
        '明天',
        '前天',
        '后天',
        '[上下本这]周',
        '[去明今]年',
        '[上下这]个?月',
        '国庆',
        '春节',
        '元旦',
        '中秋',
      ],
    },
    references: {
      // A time back ("上次", "之前") is a reference when a verb of saying goes with it: "上次去成都" is a trip,
      // "上次说的" a conversation; "之前" alone also means "before (a date)" ("移机哪天之前能完成").
      back: [
        '(?:上次|上回|之前|以前|那次|当时)[^，,。？?！!]{0,8}?(?:说|聊|讲|提|讨论|商量|定|约|推荐|建议|让你|叫你|记)',
        '我们(?:说|聊|讨论|商量|定)好?的',
        '说好的',
        '(?:让|叫)你记',
        '那个(?:方案|计划|决定|安排)',
      ],
      followUp: ['后来(?:怎么样|如何|呢|咋样)', '结果(?:怎么样|如何)', '进展(?:怎么样|如何)', '怎么样了'],
      families: {
        plan: ['方案', '计划', '决定', '安排', '说好', '定好', '定的', '商量'],
        recommendation: ['推荐', '建议'],
        remembered: ['记'],
      },
      keys: { plan: [], recommendation: ['推荐', '建议'], remembered: ['记住', '记'] },
    },
  },
  en: {
    assistantCues: [
      'you recommend',
      'you recommended',
      'did you recommend',
      'you suggest',
      'you suggested',
      'did you suggest',
      'you told me',
      'did you tell me',
      'you said',
      'you mentioned',
      'your tip',
      'your advice',
      'your suggestion',
      'your recommendation',
      'you advised',
      'you proposed',
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
        pattern:
          '\\b(?:in|during|of|since)\\s+(?<month>january|february|march|april|may|june|july|august|september|october|november|december)(?:\\s*,?\\s*(?<year>\\d{4}))?\\b',
        month: true,
      },
    ],
    asks: {
      time: ['\\bwhat time\\b', '\\bhow early\\b'],
      date: ['\\bwhen\\b', '\\b(?:what|which) (?:days?|dates?|months?|years?|weeks?)\\b', '\\bhow long ago\\b'],
    },
    shapes: {
      time: ['\\b\\d{1,2}[:：]\\d{2}\\b', '\\b\\d{1,2}\\s?(?:am|pm|a\\.m\\.|p\\.m\\.)', '\\bnoon\\b', '\\bmidnight\\b', "\\bo'clock\\b"],
      date: [
        // "may" is mostly the verb: the month counts next to a day.
        '\\b(?:january|february|march|april|june|july|august|september|october|november|december)\\b',
        '\\bmay\\s+\\d{1,2}\\b',
        '\\b\\d{1,2}(?:st|nd|rd|th)?\\s+may\\b',
        '\\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?\\s*\\d{1,2}\\b',
        '\\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\\b',
        '\\bweekends?\\b',
        '\\b(?:19|20)\\d{2}\\b',
        '\\b\\d{1,2}(?:st|nd|rd|th)\\b',
        '\\b\\d{1,2}/\\d{1,2}\\b',
        '\\b(?:yesterday|today|tonight|tomorrow|ago)\\b',
        '\\b(?:last|next|this|past|coming)\\s+(?:week|month|year|weekend|night|summer|winter|spring|fall|autumn)\\b',
      ],
    },
    references: {
      // "the last time I went to Paris" is a trip: a time back counts with a verb of saying.
      back: [
        '^(?=.*\\b(?:last time|earlier|previously)\\b)(?=.*\\b(?:said|say|discuss(?:ed)?|talked|agreed|decided|mentioned|suggested|recommended|told|planned)\\b)',
        '\\bwe (?:discussed|talked about|agreed|decided|planned|settled on)\\b',
        '\\b(?:asked|told) you to (?:remember|note)\\b',
        '\\b(?:that|the) plan we\\b',
        '\\bthat plan\\b',
      ],
      followUp: [
        '\\bhow did (?:it|that|this|(?:the|that|this|our|my|your) \\w+(?: \\w+)?) (?:go|turn out|work out)\\b',
        '\\bhow (?:is|are) (?:it|that|this|(?:the|that|this|our|my|your) \\w+) going\\b',
        '\\bwhat happened with\\b',
        '\\bwhat came of\\b',
        '\\bany (?:news|updates?) (?:on|about)\\b',
        '\\bin the end\\b',
      ],
      families: {
        plan: ['plan', 'plans', 'decision', 'decided', 'agreed', 'settled'],
        recommendation: ['recommend', 'recommended', 'recommendation', 'suggest', 'suggested', 'suggestion', 'advice', 'advised'],
        remembered: ['remember', 'note', 'noted'],
      },
      keys: { plan: [], recommendation: ['recommend', 'suggest'], remembered: ['remember', 'note'] },
    },
  },
};
