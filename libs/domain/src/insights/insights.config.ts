/**
 * The insight rules: which consistent memories point one way, and what the insight says. Like the
 * extractor's cue lists, everything here is data; `insights.ts` only counts support.
 *
 * A memory supports a rule when its text (content, attribute, entities) holds a cue of one of the
 * rule's groups and none of its `exclude` cues. Cues match as in `cue-matching.ts`: Chinese as
 * substrings, Latin on word boundaries, case-insensitively. Groups are the distinct reasons a rule
 * accepts ("small team", "no ops", "infrastructure cost"): `minGroups` asks for several reasons, so
 * that three complaints about prices make a budget-conscious user, not a low-maintenance one.
 */
export interface InsightRule {
  /** Slug; the insight's merge key is `insight:<id>`. */
  readonly id: string;
  /** What the insight says, in each language; the majority language of the sources picks one. */
  readonly label: { readonly zh: string; readonly en: string };
  readonly groups: readonly InsightCueGroup[];
  /** Cues that disqualify a memory ("我不在意隐私" says the opposite of 隐私). */
  readonly exclude?: readonly string[];
  /** Distinct statements needed (memories sharing a source turn count once); default: the configured minimum. */
  readonly minSupport?: number;
  /** Distinct groups the statements must cover together; default 1. */
  readonly minGroups?: number;
  /** Least importance of the insight; it is also always above its sources' (see insights.ts). */
  readonly importance?: number;
}

export interface InsightCueGroup {
  readonly id: string;
  /** Chinese and English cues together. */
  readonly cues: readonly string[];
}

/**
 * Three statements by default: "several consistent memories". Two can be coincidence (a remark about
 * a restaurant being too expensive and one about a phone), and the ranking boost an insight gets
 * should rest on a pattern, not a pair. Rules or ENGRAM_INSIGHT_MIN_SUPPORT can lower it to 2.
 */
export const DEFAULT_INSIGHT_MIN_SUPPORT = 3;

export const DEFAULT_INSIGHT_RULES: readonly InsightRule[] = [
  {
    // The example: "团队人少", "不想自己运维", "云数据库太贵" → low maintenance. Infrastructure
    // cost counts as a reason because it is the running cost of what a small team must operate.
    id: 'low-maintenance',
    label: { zh: '偏好省心、免运维的托管服务', en: 'Prefers low-maintenance managed services' },
    minGroups: 2,
    groups: [
      {
        id: 'small-team',
        cues: [
          '团队人少',
          '团队很小',
          '团队规模小',
          '小团队',
          '人手不够',
          '人手少',
          '人手紧张',
          '只有两个人',
          '只有三个人',
          '只有我一个人',
          'small team',
          'team is small',
          'short-staffed',
          'short staffed',
          'understaffed',
          'only two engineers',
          'only three engineers',
          'only 2 engineers',
          'only 3 engineers',
          'only have two engineers',
          'only have three engineers',
          'only have 2 engineers',
          'only have 3 engineers',
        ],
      },
      {
        id: 'no-ops',
        cues: [
          '不想自己运维',
          '不喜欢自己运维',
          '不想运维',
          '不喜欢运维',
          '懒得运维',
          '不愿意运维',
          '不想自己维护',
          '不想维护服务器',
          '不想自己搭',
          '不想自建',
          '运维太麻烦',
          '运维太累',
          '免运维',
          "don't want to run",
          "don't want to manage",
          "don't want to maintain",
          "don't like running",
          "don't like managing",
          'do not want to run',
          'do not want to manage',
          'do not want to maintain',
          'hate doing ops',
          'hate ops',
          'no time for ops',
          'babysit servers',
          'babysitting servers',
        ],
      },
      {
        id: 'managed',
        cues: [
          '托管服务',
          '托管数据库',
          '全托管',
          '云托管',
          '用托管',
          'managed service',
          'managed services',
          'managed database',
          'fully managed',
          'serverless',
        ],
      },
      {
        id: 'infrastructure-cost',
        cues: [
          '云数据库太贵',
          '数据库太贵',
          '服务器太贵',
          '云服务太贵',
          '运维成本',
          '自建太贵',
          'database is too expensive',
          'databases are too expensive',
          'database bill',
          'servers are too expensive',
          'hosting is too expensive',
          'cloud bill',
          'too expensive to run',
          'ops cost',
          'operations cost',
        ],
      },
    ],
  },
  {
    id: 'budget-conscious',
    label: { zh: '预算敏感，看重性价比', en: 'Budget-conscious; values cost-effectiveness' },
    exclude: ['不差钱', '不在乎钱', '不在乎价格', 'money is no object', "price doesn't matter", 'price does not matter'],
    groups: [
      {
        id: 'cost',
        cues: [
          '太贵',
          '便宜点',
          '便宜一些',
          '便宜的',
          '省钱',
          '性价比',
          '预算有限',
          '预算紧',
          '预算不多',
          '控制成本',
          '降本',
          '不想花太多',
          'too expensive',
          'cheaper',
          'save money',
          'saving money',
          'tight budget',
          'on a budget',
          'cost-effective',
          'affordable',
          'pricey',
          'budget is tight',
          'keep costs down',
          'cut costs',
        ],
      },
    ],
  },
  {
    id: 'privacy-conscious',
    label: { zh: '重视隐私和数据安全', en: 'Privacy-conscious' },
    exclude: ['不在意隐私', '不在乎隐私', '不关心隐私', "don't care about privacy", 'do not care about privacy'],
    groups: [
      {
        id: 'privacy',
        cues: [
          '隐私',
          '不想被追踪',
          '数据安全',
          '不想上传',
          '数据不出',
          '不想把数据',
          '端到端加密',
          'privacy',
          'private data',
          'personal data',
          "don't want to be tracked",
          'do not want to be tracked',
          'end-to-end encryption',
          'end-to-end encrypted',
          'gdpr',
          'data stays',
        ],
      },
    ],
  },
  {
    id: 'early-riser',
    label: { zh: '习惯早起', en: 'An early riser' },
    exclude: ['起不来', '不早起', '不想早起', '讨厌早起', "can't get up early", 'hate getting up early', 'not a morning person'],
    groups: [
      {
        id: 'mornings',
        cues: [
          '早起',
          '早睡早起',
          '五点起床',
          '六点起床',
          '五点起',
          '六点起',
          '早上五点',
          '早上六点',
          '晨跑',
          'get up early',
          'gets up early',
          'wake up early',
          'early riser',
          'morning person',
          'up at 5',
          'up at 6',
          '5am',
          '6am',
          'morning run',
        ],
      },
    ],
  },
  {
    id: 'night-owl',
    label: { zh: '夜猫子，习惯晚睡', en: 'A night owl' },
    exclude: ['不熬夜', '从不熬夜', '不再熬夜', '不晚睡', 'never stay up late', "don't stay up late", 'not a night owl'],
    groups: [
      {
        id: 'nights',
        cues: [
          '熬夜',
          '晚睡',
          '夜猫子',
          '凌晨一点',
          '凌晨两点',
          '凌晨三点',
          '通宵',
          'night owl',
          'stay up late',
          'stays up late',
          'staying up late',
          'late at night',
          'after midnight',
          '1am',
          '2am',
          '3am',
        ],
      },
    ],
  },
];

export const INSIGHT_RULE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Validates extra rules (ENGRAM_INSIGHT_RULES: a JSON array of rules, inline or in a file). Returns
 * the rules, or problems naming each bad field (`[1].groups.0.cues`).
 */
export function parseInsightRules(text: string): { rules: InsightRule[] } | { problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      problems: ['must be JSON: an array of rules like [{"id":"…","label":{"zh":"…","en":"…"},"groups":[{"id":"…","cues":["…"]}]}]'],
    };
  }
  if (!Array.isArray(parsed)) return { problems: ['must be a JSON array of rules'] };
  const problems: string[] = [];
  const seen = new Set<string>();
  parsed.forEach((rule: unknown, i) => {
    const at = `[${i}]`;
    if (!isObject(rule)) return problems.push(`${at}: must be an object`);
    if (typeof rule.id !== 'string' || !INSIGHT_RULE_ID.test(rule.id)) problems.push(`${at}.id: a slug of a-z, 0-9 and -`);
    else if (seen.has(rule.id)) problems.push(`${at}.id: "${rule.id}" appears twice`);
    else seen.add(rule.id);
    const label = rule.label;
    if (!isObject(label) || !nonEmpty(label.zh) || !nonEmpty(label.en)) problems.push(`${at}.label: needs non-empty zh and en`);
    if (!Array.isArray(rule.groups) || rule.groups.length === 0) problems.push(`${at}.groups: a non-empty array`);
    else {
      rule.groups.forEach((group: unknown, g) => {
        if (!isObject(group) || !nonEmpty(group.id)) problems.push(`${at}.groups.${g}.id: a non-empty string`);
        if (!isObject(group) || !stringList(group.cues, true))
          problems.push(`${at}.groups.${g}.cues: a non-empty array of non-empty strings`);
      });
    }
    if (rule.exclude !== undefined && !stringList(rule.exclude, false)) problems.push(`${at}.exclude: an array of non-empty strings`);
    if (
      rule.minSupport !== undefined &&
      !(Number.isInteger(rule.minSupport) && (rule.minSupport as number) >= 2 && (rule.minSupport as number) <= 50)
    ) {
      problems.push(`${at}.minSupport: an integer from 2 to 50`);
    }
    const groups = Array.isArray(rule.groups) ? rule.groups.length : 0;
    if (
      rule.minGroups !== undefined &&
      !(Number.isInteger(rule.minGroups) && (rule.minGroups as number) >= 1 && (rule.minGroups as number) <= Math.max(1, groups))
    ) {
      problems.push(`${at}.minGroups: an integer from 1 to the number of groups`);
    }
    if (rule.importance !== undefined && !(typeof rule.importance === 'number' && rule.importance >= 0 && rule.importance <= 1)) {
      problems.push(`${at}.importance: a number from 0 to 1`);
    }
    return undefined;
  });
  return problems.length > 0 ? { problems } : { rules: parsed as InsightRule[] };
}

/** The rules in force: the defaults, with configured rules added (a configured id replaces the default of that id). */
export function insightRulesWith(extra: readonly InsightRule[], defaults: readonly InsightRule[] = DEFAULT_INSIGHT_RULES): InsightRule[] {
  const replaced = new Set(extra.map((r) => r.id));
  return [...defaults.filter((r) => !replaced.has(r.id)), ...extra];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function stringList(value: unknown, required: boolean): boolean {
  return Array.isArray(value) && (!required || value.length > 0) && value.every(nonEmpty);
}
