import type { RecallDto } from '@engram/services/recall/recall.dto';
import type { PostTurnsDto, TurnDto } from '@engram/services/ingest/turns.dto';

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed for one stream (a user, the queries) derived from the run's seed: streams are independent. */
export function streamSeed(seed: number, ...parts: readonly (string | number)[]): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

type Random = () => number;
export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** A generated statement and what it is about (the words a question about it would use). */
export interface Statement {
  readonly text: string;
  readonly topic: string;
  readonly language: 'zh' | 'en';
}

const ZH = {
  drinkAdj: ['冰', '热', '无糖', '少糖', '低脂', '手冲', '现磨', '加浓', '双份', '燕麦'],
  drinks: ['美式咖啡', '拿铁', '乌龙茶', '龙井', '普洱', '豆浆', '椰子水', '抹茶', '柠檬茶', '气泡水', '酸梅汤', '红茶'],
  foods: [
    '火锅',
    '小笼包',
    '牛肉面',
    '烤鸭',
    '麻辣烫',
    '寿司',
    '煎饼果子',
    '酸菜鱼',
    '螺蛳粉',
    '肠粉',
    '羊肉串',
    '担担面',
    '香菜',
    '榴莲',
    '臭豆腐',
  ],
  weekly: ['每周一', '每周二', '每周三', '每周四', '每周五', '每周六', '每周日'],
  timeOfDay: ['早上', '中午', '下午', '晚上'],
  activities: ['打羽毛球', '去游泳', '去爬山', '骑车', '练瑜伽', '下围棋', '练书法', '弹钢琴', '打篮球', '跑步', '上英语课', '去健身房'],
  deadlines: ['下周一', '下周三', '周五', '月底', '明天下午', '后天', '下个月初'],
  documents: [
    '季度报告',
    '预算表',
    '年会方案',
    '周报',
    '合同',
    '演讲稿',
    '测试计划',
    '招聘需求',
    '产品文档',
    '发布说明',
    '复盘材料',
    '培训课件',
  ],
  handOff: ['交给老板', '发给客户', '提交评审', '整理完', '改好', '发给财务'],
  allergens: ['花生', '芒果', '海鲜', '牛奶', '鸡蛋', '青霉素', '花粉', '猫毛', '小麦', '虾'],
  cities: ['杭州', '成都', '深圳', '西安', '南京', '苏州', '厦门', '青岛', '武汉', '长沙', '昆明', '大连'],
};

const EN = {
  drinkAdj: ['iced', 'hot', 'decaf', 'oat milk', 'black', 'double shot', 'sugar-free', 'cold brew', 'spiced', 'honey'],
  drinks: [
    'latte',
    'green tea',
    'espresso',
    'chai',
    'matcha',
    'kombucha',
    'flat white',
    'mocha',
    'earl grey',
    'cappuccino',
    'rooibos',
    'americano',
  ],
  hobbies: [
    'rock climbing',
    'sourdough baking',
    'chess',
    'jazz piano',
    'trail running',
    'bird watching',
    'kayaking',
    'woodworking',
    'sketching',
    'pottery',
    'salsa dancing',
    'astronomy',
  ],
  weekdays: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  taskVerbs: ['renew', 'submit', 'review', 'finish', 'send', 'update', 'sign', 'print'],
  taskObjects: [
    'passport',
    'tax return',
    'quarterly report',
    'insurance form',
    'lease',
    'design doc',
    'expense claim',
    'grant proposal',
    'slide deck',
    'visa application',
    'budget sheet',
    'release notes',
  ],
  deadlines: ['Friday', 'next Monday', 'the end of the month', 'tomorrow', 'next Wednesday', 'the 15th'],
  callees: ['the dentist', 'my landlord', 'the plumber', 'my accountant', 'the vet', 'my sister', 'the bank', 'the school'],
  allergens: ['shellfish', 'peanuts', 'penicillin', 'pollen', 'gluten', 'lactose', 'cats', 'latex', 'sesame', 'kiwi'],
  cities: ['Berlin', 'Lisbon', 'Toronto', 'Osaka', 'Melbourne', 'Denver', 'Dublin', 'Seoul', 'Austin', 'Vienna', 'Oslo', 'Prague'],
};

/** Preference, profile, fact and task sentences in both languages, the kinds a memory holds. */
export const TEMPLATES: readonly ((r: Random) => Statement)[] = [
  (r) => {
    const topic = `${pick(r, ZH.drinkAdj)}${pick(r, ZH.drinks)}`;
    return { text: `我喜欢喝${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.foods);
    return { text: `我不喜欢吃${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const activity = pick(r, ZH.activities);
    return { text: `我${pick(r, ZH.weekly)}${pick(r, ZH.timeOfDay)}${activity}`, topic: activity, language: 'zh' };
  },
  (r) => {
    const topic = `${pick(r, ZH.documents)}${pick(r, ZH.handOff)}`;
    return { text: `${pick(r, ZH.deadlines)}之前要把${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.allergens);
    return { text: `我对${topic}过敏`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.cities);
    return { text: `我住在${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = `${pick(r, EN.drinkAdj)} ${pick(r, EN.drinks)}`;
    return { text: `I prefer ${topic}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.hobbies);
    return { text: `I usually do ${topic} on ${pick(r, EN.weekdays)} mornings`, topic, language: 'en' };
  },
  (r) => {
    const topic = `${pick(r, EN.taskVerbs)} the ${pick(r, EN.taskObjects)}`;
    return { text: `I need to ${topic} by ${pick(r, EN.deadlines)}`, topic, language: 'en' };
  },
  (r) => {
    const topic = `call ${pick(r, EN.callees)}`;
    return { text: `Remind me to ${topic} on ${pick(r, EN.weekdays)}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.allergens);
    return { text: `I am allergic to ${topic}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.cities);
    return { text: `I live in ${topic}`, topic, language: 'en' };
  },
];

/** A question about a statement, in its language. */
export function questionAbout(statement: Statement, random: Random): string {
  return statement.language === 'zh'
    ? pick(random, [`关于${statement.topic}我说过什么`, `${statement.topic}怎么样`, `我和${statement.topic}有什么关系`])
    : pick(random, [`what did I say about ${statement.topic}`, `anything about ${statement.topic}?`, `remind me about ${statement.topic}`]);
}

export interface WorkloadOptions {
  /** Turns in all (spread as evenly as possible over the users). */
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  /** Turns per POST (one session each). Default 10. */
  readonly turnsPerRequest?: number;
  /** occurredAt of the first turn. Default 2026-01-01T00:00:00Z. */
  readonly start?: string;
}

export const userIdOf = (user: number) => `bench-u${user}`;

/** Turns of one user: the same for the same (seed, user, count), whatever the other users get. */
export function userStatements(seed: number, user: number, count: number): Statement[] {
  const random = seededRandom(streamSeed(seed, 'user', user));
  return Array.from({ length: count }, () => pick(random, TEMPLATES)(random));
}

/**
 * The workload as POST /v1/turns bodies, sessions of all users interleaved (session 0 of every
 * user, then session 1, …) as if the users were talking at the same time. Lazy: 100,000 turns
 * are never held at once.
 */
export function* workloadRequests(options: WorkloadOptions): Generator<PostTurnsDto> {
  const perRequest = options.turnsPerRequest ?? 10;
  const start = Date.parse(options.start ?? '2026-01-01T00:00:00Z');
  const countOf = (user: number) => Math.floor(options.turns / options.users) + (user < options.turns % options.users ? 1 : 0);
  const sessions = Math.ceil(countOf(0) / perRequest);
  const statements = new Map<number, Statement[]>();
  for (let session = 0; session < sessions; session++) {
    for (let user = 0; user < options.users; user++) {
      const count = countOf(user);
      const from = session * perRequest;
      if (from >= count) continue;
      if (session === 0) statements.set(user, userStatements(options.seed, user, count));
      const own = statements.get(user)!;
      const turns: TurnDto[] = [];
      for (let i = from; i < Math.min(count, from + perRequest); i++) {
        turns.push({
          turnId: `t${i}`,
          role: 'user',
          text: own[i].text,
          // A minute per turn, an hour between sessions: well inside every half-life.
          occurredAt: new Date(start + (session * 60 + (i - from)) * 60_000).toISOString(),
        } as TurnDto);
      }
      yield { userId: userIdOf(user), sessionId: `s${session}`, turns } as PostTurnsDto;
      if (from + perRequest >= count) statements.delete(user);
    }
  }
}

/** `count` recall questions about what random users said, deterministic for the seed. */
export function workloadQueries(options: Pick<WorkloadOptions, 'turns' | 'users' | 'seed'>, count: number): RecallDto[] {
  const random = seededRandom(streamSeed(options.seed, 'queries'));
  const perUser = Math.max(1, Math.floor(options.turns / options.users));
  return Array.from({ length: count }, () => {
    const user = Math.floor(random() * Math.min(options.users, options.turns));
    const statements = userStatements(options.seed, user, perUser);
    return { userId: userIdOf(user), query: questionAbout(pick(random, statements), random) } as RecallDto;
  });
}

/** A freshness probe: a statement with a word no other turn has, so recall can only find it from this turn. */
export function probeStatement(seed: number, n: number): Statement & { readonly marker: string } {
  const random = seededRandom(streamSeed(seed, 'probe', n));
  const marker = `zq${Math.floor(random() * 36 ** 4).toString(36)}${n}x`;
  return n % 2 === 0
    ? { text: `我喜欢喝${marker}牌的${pick(random, ZH.drinks)}`, topic: marker, language: 'zh', marker }
    : { text: `I prefer ${marker} brand ${pick(random, EN.drinks)}`, topic: marker, language: 'en', marker };
}
