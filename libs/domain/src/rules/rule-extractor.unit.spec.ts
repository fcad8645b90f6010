import type { TurnRole } from '@engram/contracts';
import type { ExtractedItemDraft } from '../extraction/extraction.strategy';
import { mergeKeyOf } from '../extraction/extraction.strategy';
import { extractWithRules, purchaseOf, RuleExtractor, splitClauses } from './rule-extractor';

const AT = '2026-11-30T08:00:00.000Z';

function extract(text: string, role: TurnRole = 'user', ephemeral = false): ExtractedItemDraft[] {
  return extractWithRules({
    tenantId: 'acme',
    userId: 'u-1',
    sessionId: 's-1',
    turnId: 'turn-1',
    role,
    text,
    occurredAt: AT,
    ephemeral,
    signals: [],
  });
}

function only(text: string, role: TurnRole = 'user'): ExtractedItemDraft {
  const items = extract(text, role);
  expect(items).toHaveLength(1);
  return items[0];
}

describe('RuleExtractor', () => {
  it('has the version rules-10 and resolves the same items as the pure function', async () => {
    const extractor = new RuleExtractor();
    expect(extractor.version).toBe('rules-10');
    const input = {
      tenantId: 't',
      userId: 'u',
      sessionId: 's',
      turnId: 'x',
      role: 'user' as const,
      text: '我叫老周',
      occurredAt: AT,
      ephemeral: false,
      signals: [],
    };
    expect(await extractor.extract(input)).toEqual(extractWithRules(input));
  });

  describe('profile, tech stack and tools', () => {
    it('given "我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL", then three items, one fact each', () => {
      const items = extract('我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL');
      expect(items.map((i) => [i.kind, mergeKeyOf(i), i.value, i.content])).toEqual([
        ['profile', 'user/name', '老周', '我叫老周'],
        ['profile', 'user/tech_stack', 'Spring Boot', '我们的技术栈是 Spring Boot'],
        ['fact', 'user/database', 'PostgreSQL', '数据库用 PostgreSQL'],
      ]);
      expect(items[1].entities).toContain('Spring Boot');
      expect(items[2].entities).toContain('PostgreSQL');
    });

    it('given the same database said in English, then it shares the merge key and the canonical value', () => {
      const item = only('we use Postgres as our database');
      expect([mergeKeyOf(item), item.value]).toEqual(['user/database', 'PostgreSQL']);
    });

    it('given role and employer in one English clause, then two profile items', () => {
      const items = extract("I'm a backend engineer at Stripe");
      expect(items.map((i) => [i.attribute, i.value])).toEqual([
        ['role', 'backend engineer'],
        ['employer', 'Stripe'],
      ]);
    });

    it('given employer and city in Chinese, then both are profile facts', () => {
      const items = extract('我在字节跳动工作，住在杭州');
      expect(items.map((i) => [i.kind, i.attribute, i.value])).toEqual([
        ['profile', 'employer', '字节跳动'],
        ['profile', 'location', '杭州'],
      ]);
    });

    it('given "My name is Alex and I live in Berlin", then the clause splits on "and I"', () => {
      expect(extract('My name is Alex and I live in Berlin').map((i) => [i.attribute, i.value])).toEqual([
        ['name', 'Alex'],
        ['location', 'Berlin'],
      ]);
    });

    it('given a fact about a family member, then the subject is that person', () => {
      expect(mergeKeyOf(only('记住我女儿的生日是5月3日'))).toBe('daughter/birthday');
      expect(only('我老婆不吃香菜')).toMatchObject({ subject: 'wife', kind: 'preference', value: 'avoid' });
    });

    it('given an allergy, then it is a pinned-worthy profile fact with high importance', () => {
      expect(only("I'm allergic to peanuts")).toMatchObject({ kind: 'profile', attribute: 'allergy:peanuts' });
    });

    it('given "我是…" naming a kind of person or ending in 的, then it is not the user\'s name', () => {
      for (const text of ['我是曼联球迷', '我是射手座的', '我是果粉', '我是做销售的']) {
        expect(extract(text).filter((item) => item.attribute === 'name')).toEqual([]);
      }
      expect(only('我是老周')).toMatchObject({ attribute: 'name', value: '老周' });
    });

    it('given what a company uses, then it is not the employer; what it is still is', () => {
      for (const text of ['我们公司用飞书', 'our company uses Slack']) {
        expect(extract(text).filter((item) => item.attribute === 'employer')).toEqual([]);
      }
      expect(only('我的公司是字节跳动')).toMatchObject({ attribute: 'employer', value: '字节跳动' });
    });
  });

  describe('preferences', () => {
    it('given "I prefer VS Code for TypeScript work", then editor = VS Code with both products as entities', () => {
      const item = only('I prefer VS Code for TypeScript work');
      expect(item).toMatchObject({ kind: 'preference', subject: 'user', attribute: 'editor', value: 'VS Code' });
      expect(item.entities).toEqual(expect.arrayContaining(['VS Code', 'TypeScript']));
    });

    it('given "我喜欢用 VS Code", then the same key and value as the English statement', () => {
      const zh = only('我喜欢用 VS Code');
      const en = only('I prefer VS Code for TypeScript work');
      expect([mergeKeyOf(zh), zh.value]).toEqual([mergeKeyOf(en), en.value]);
    });

    it('given "我喜欢用 VS Code" five times, then every extraction has the same key and value', () => {
      const items = Array.from({ length: 5 }, () => only('我喜欢用 VS Code'));
      expect(new Set(items.map((i) => `${mergeKeyOf(i)}=${i.value}`)).size).toBe(1);
    });

    it.each([['I hate meetings before 10am', 'preference:meetings']])(
      'given the dislike "%s", then a preference %s with value dislike',
      (text, attribute) => {
        expect(only(text)).toMatchObject({ kind: 'preference', attribute, value: 'dislike', operation: 'assert' });
      },
    );

    it.each([
      ['我不吃辣', 'preference:辣'],
      ['I never drink coffee after 3pm', 'preference:coffee'],
    ])(
      'given a dislike said with a verb of eating or drinking "%s", then a preference %s with value avoid (a constraint)',
      (text, attribute) => {
        expect(only(text)).toMatchObject({ kind: 'preference', attribute, value: 'avoid', operation: 'assert' });
      },
    );

    it('given a liking and a later dislike of the same thing, then they share a key (so one supersedes the other)', () => {
      expect(mergeKeyOf(only('我喜欢吃辣'))).toBe(mergeKeyOf(only('我不吃辣')));
    });

    it('given a favourite with a named attribute, then that attribute', () => {
      expect(only('my favorite editor is Neovim')).toMatchObject({ attribute: 'editor', value: 'Neovim' });
    });
  });

  describe('budgets, schedules, deadlines, decisions, tasks', () => {
    it('given "预算控制在三万以内" then "预算提到五万了", then the same key user/budget with 三万 then 五万', () => {
      const before = only('预算控制在三万以内');
      const after = only('预算提到五万了');
      expect([mergeKeyOf(before), before.value]).toEqual(['user/budget', '三万']);
      expect([mergeKeyOf(after), after.value]).toEqual(['user/budget', '五万']);
    });

    it('given "每周三下午两点例会", then a fact about the weekly meeting whose value is the time', () => {
      expect(only('每周三下午两点例会')).toMatchObject({ kind: 'fact', attribute: 'weekly_meeting', value: '每周三下午两点' });
    });

    it('given "The standup is every Monday at 10am", then the standup schedule', () => {
      expect(only('The standup is every Monday at 10am')).toMatchObject({ attribute: 'standup', value: 'every Monday at 10am' });
    });

    it('given "the deadline is Friday", then a task deadline = Friday', () => {
      expect(only('the deadline is Friday')).toMatchObject({ kind: 'task', attribute: 'deadline', value: 'Friday' });
    });

    it('given "项目下周五截止", then the same deadline attribute in Chinese', () => {
      expect(only('项目下周五截止')).toMatchObject({ kind: 'task', attribute: 'deadline', value: '下周五' });
    });

    it('given "我们决定用 Kafka 做消息队列", then a decision on the message queue', () => {
      expect(only('我们决定用 Kafka 做消息队列')).toMatchObject({
        kind: 'decision',
        attribute: 'message_queue',
        value: 'Kafka',
        entities: ['Kafka'],
      });
    });

    it('given "let\'s go with Postgres", then a decision with the canonical product', () => {
      expect(only("let's go with Postgres")).toMatchObject({ kind: 'decision', attribute: 'database', value: 'PostgreSQL' });
    });

    it('given work in progress, then a task', () => {
      expect(only('我正在把数据库迁移到 PostgreSQL')).toMatchObject({ kind: 'task' });
      expect(only("I'm working on the billing service")).toMatchObject({ kind: 'task', value: 'billing service' });
    });
  });

  describe('assistant turns', () => {
    it('given "我推荐你去试试楼下的兰州拉面", then an assistant recommendation of 兰州拉面', () => {
      expect(only('我推荐你去试试楼下的兰州拉面', 'assistant')).toMatchObject({
        subject: 'assistant',
        kind: 'fact',
        attribute: 'recommendation:兰州拉面',
        value: '兰州拉面',
        content: '我推荐你去试试楼下的兰州拉面',
      });
    });

    it('given a recommended book title in quotes, then the title is the value and an entity', () => {
      const item = only("I recommend 'Designing Data-Intensive Applications'", 'assistant');
      expect(item).toMatchObject({ subject: 'assistant', value: 'Designing Data-Intensive Applications' });
      expect(item.attribute).toBe('recommendation:designing-data-intensive-applications');
      expect(item.entities).toEqual(['Designing Data-Intensive Applications']);
    });

    it('given the assistant echoing a preference, then nothing is attributed to the user', () => {
      expect(extract('好的，你喜欢用 VS Code，我记下了', 'assistant')).toEqual([]);
    });
  });

  describe('retractions and corrections', () => {
    it('given "忘掉我之前说的预算", then a retraction of user/budget', () => {
      expect(only('忘掉我之前说的预算')).toMatchObject({ attribute: 'budget', operation: 'retract', value: '' });
    });

    it('given "that\'s no longer true", then a retraction of whatever was mentioned last', () => {
      expect(only("that's no longer true")).toMatchObject({ attribute: '@last', operation: 'retract' });
    });

    it('given "I no longer use Vim", then a retraction of the editor only if it is still Vim', () => {
      expect(only('I no longer use Vim')).toMatchObject({ attribute: 'editor', value: 'Vim', operation: 'retract' });
    });

    it('marks a correction open when it names nothing ("不对，改成9点", "no, make it 10"), named when it does', () => {
      expect(only('不对，改成9点')).toMatchObject({ attribute: '@last', value: '9点', correction: 'open' });
      expect(only('no, make it 10')).toMatchObject({ attribute: '@last', value: '10', correction: 'open' });
      expect(only('把服务器时间改成8点')).toMatchObject({ attribute: '服务器时间', value: '8点', correction: 'named' });
      expect(only('set the standup to 9am')).toMatchObject({ attribute: 'standup', value: '9am', correction: 'named' });
      expect(only('我改主意了，我要低卡方案')).toMatchObject({ attribute: 'task:低卡方案', correction: 'named' });
    });

    it('takes an amount for a budget only when it is said as money', () => {
      expect(only('我的收货地址改成上海市浦东新区世纪大道100号')).toMatchObject({
        attribute: 'shipping_address',
        value: '上海市浦东新区世纪大道100号',
      });
      expect(only('my meeting room changed to room 301')).toMatchObject({ attribute: 'meeting-room', value: 'room 301' });
      expect(only('改成五千块')).toMatchObject({ attribute: 'budget', value: '五千块' });
      expect(only('make it $500')).toMatchObject({ attribute: 'budget', value: '$500' });
    });

    it('reads what a forget request names with the other rules, in both languages', () => {
      expect(only('忘掉我之前说的喜欢吃榴莲')).toMatchObject({
        attribute: 'preference:榴莲',
        value: '',
        operation: 'retract',
        correction: 'named',
      });
      expect(only('忘掉我喜欢吃榴莲这件事')).toMatchObject({ attribute: 'preference:榴莲', operation: 'retract' });
      expect(only('forget that I like durian')).toMatchObject({
        attribute: 'preference:durian',
        operation: 'retract',
        correction: 'named',
      });
      expect(only('forget what I said about durian')).toMatchObject({ attribute: '@last', operation: 'retract', correction: 'open' });
    });

    it('does not take conversation for a correction or a forget request', () => {
      const read = (text: string) => extract(text).filter((d) => d.correction || d.operation === 'retract');
      expect(read("I'll never forget the day my youngest took her first steps")).toEqual([]);
      expect(read("Tomorrow's gonna be an awesome night and I'm not gonna forget a second of it")).toEqual([]);
      expect(read('now I have an external drive for backups')).toEqual([]);
      expect(read('The tank is big enough now for three')).toEqual([]);
      expect(read('sorry to hear that, I love hiking')).toEqual([]);
      expect(read("no, I haven't seen it")).toEqual([]);
      expect(read('其实我也喜欢喝红茶')).toEqual([]);
    });

    it('given "我已经入职了，现在的岗位是Go后端开发工程师" or "my position now is Go backend engineer", then the role', () => {
      expect(extract('我已经入职了，现在的岗位是Go后端开发工程师')).toEqual([
        expect.objectContaining({ kind: 'profile', attribute: 'role', value: 'Go后端开发工程师' }),
      ]);
      expect(only('my position now is Go backend engineer')).toMatchObject({
        kind: 'profile',
        attribute: 'role',
        value: 'Go backend engineer',
      });
    });

    it('keeps the subject behind a remember preamble, and raises importance for emphasis', () => {
      expect(only('这条必须永远记住：我女儿对花生过敏')).toMatchObject({ subject: 'daughter', attribute: 'allergy:花生', confidence: 0.9 });
      expect(only('always remember that my daughter is allergic to peanuts')).toMatchObject({
        subject: 'daughter',
        attribute: 'allergy:peanuts',
      });
      expect(only('我以后都不吃香菜').importance).toBeCloseTo(only('我不吃香菜').importance + 0.15);
      expect(only('I always fly economy').importance).toBeCloseTo(only('I usually fly economy').importance + 0.15);
    });

    it('gives a known attribute its words in both languages as a search key', () => {
      expect(only('不是MySQL，是PostgreSQL')).toMatchObject({ attribute: 'database', value: 'PostgreSQL', keys: ['数据库 database db'] });
    });

    it('given "我不再吃肉了", which names no slot, then a new dislike instead of a retraction', () => {
      expect(only('我不再吃肉了')).toMatchObject({ attribute: 'preference:肉', value: 'dislike', operation: 'assert' });
    });

    it('given "不是三万，是五万", then the budget with the new value (kept as one clause)', () => {
      expect(splitClauses('不是三万，是五万')).toEqual(['不是三万，是五万']);
      expect(only('不是三万，是五万')).toMatchObject({ attribute: 'budget', value: '五万', operation: 'assert' });
    });

    it('given "actually it\'s 50k", then the budget with the new value', () => {
      expect(only("actually it's 50k")).toMatchObject({ attribute: 'budget', value: '50k', confidence: 0.85 });
    });

    it('given "Actually, I meant Vim", then the editor, content kept as said', () => {
      expect(only('Actually, I meant Vim')).toMatchObject({ attribute: 'editor', value: 'Vim', content: 'Actually, I meant Vim' });
    });
  });

  describe('realistic chat', () => {
    it('given two products in one clause, then one fact per product, each in its own category', () => {
      expect(extract('我们项目用的是 NestJS 和 MongoDB').map((i) => [i.attribute, i.value])).toEqual([
        ['framework', 'NestJS'],
        ['database', 'MongoDB'],
      ]);
    });

    it('given an amount with a thousands separator, then the clause is not split inside the number', () => {
      expect(only('the budget is around $5,000')).toMatchObject({ attribute: 'budget', value: '$5,000' });
    });

    it('given a softened negation ("不是很喜欢"), then a dislike, not a like', () => {
      expect(only('我不是很喜欢这个方案')).toMatchObject({ value: 'dislike' });
    });

    it('given a dated to-do without the word deadline, then a task due on that date', () => {
      expect(only('下周三之前要把报告交给老板')).toMatchObject({ kind: 'task', value: '下周三' });
    });

    it('given a schedule change, then the same weekly meeting attribute with the new time', () => {
      expect(only('例会改到周四下午三点')).toMatchObject({ attribute: 'weekly_meeting', value: '周四下午三点' });
    });

    it('given a quoted title after a recommendation, then the whole title, articles included', () => {
      expect(only("You might like 'The Pragmatic Programmer'", 'assistant')).toMatchObject({ value: 'The Pragmatic Programmer' });
    });
  });

  describe('what is not a memory', () => {
    it.each(['上次你给我推荐的那家店叫什么', 'which books did you recommend?', '帮我看看这家店的营业时间', "what's the weather today"])(
      'given the question or request "%s", then no items',
      (text) => {
        expect(extract(text)).toEqual([]);
      },
    );

    it('given a masked value, then no item that would only store the placeholder', () => {
      expect(extract('我的手机号是[PHONE]')).toEqual([]);
    });

    it('given system or tool turns, then no items', () => {
      expect(extract('我喜欢用 VS Code', 'system')).toEqual([]);
    });
  });

  it('given an item, then it carries provenance, time and the ephemeral flag of its turn', () => {
    const [item] = extract('记住我喜欢用 VS Code', 'user', true);
    expect(item).toMatchObject({ validFrom: AT, sourceTurnIds: ['turn-1'], ephemeral: true, confidence: 0.9 });
    expect(item.importance).toBeGreaterThan(0.6);
  });
});

describe('RuleExtractor: wrong memories and misses fixed in rules-2', () => {
  it('given "I\'m Italian" / "我是意大利人", then a nationality, never a name', () => {
    expect(only("I'm Italian")).toMatchObject({ kind: 'profile', attribute: 'nationality', value: 'Italian' });
    expect(only('我是意大利人')).toMatchObject({ kind: 'profile', attribute: 'nationality', value: '意大利' });
    expect(only("I'm Sofia")).toMatchObject({ attribute: 'name', value: 'Sofia' });
  });

  it('given "I joined a gym", then no employer; given "I joined Stripe", then employer Stripe', () => {
    // An employer is an organisation by name (or by kind, "一家外企"), not every group one joins.
    for (const text of [
      'I joined a gym last week!',
      'Just yesterday I joined a nearby church.',
      'I joined a service-focused online group',
    ]) {
      expect(extract(text).filter((i) => i.attribute === 'employer')).toEqual([]);
    }
    expect(extract('I joined Stripe as a backend engineer').map((i) => [i.attribute, i.value])).toEqual([
      ['employer', 'Stripe'],
      ['role', 'backend engineer'],
    ]);
    expect(extract('I work for Ledgerly').find((i) => i.attribute === 'employer')).toMatchObject({ value: 'Ledgerly' });
  });

  it('given "我在北京工作" or "我在家上班", then no employer: a city is where the user is, home is neither', () => {
    expect(extract('我在北京工作').map((i) => [i.attribute, i.value])).toEqual([['location', '北京']]);
    expect(extract('我在苏州市上班').map((i) => [i.attribute, i.value])).toEqual([['location', '苏州市']]);
    expect(extract('我在家上班').filter((i) => i.kind === 'profile')).toEqual([]);
    // A company named after its city is still a company; a workplace by kind is still an employer.
    expect(extract('我在深圳市腾讯计算机系统有限公司工作').map((i) => [i.attribute, i.value])).toEqual([
      ['employer', '深圳市腾讯计算机系统有限公司'],
    ]);
    expect(extract('我在医院上班').map((i) => [i.attribute, i.value])).toEqual([['employer', '医院']]);
  });

  it('given "我在评估工作量", then no employer; given "我在一家外企做财务", then employer and role', () => {
    expect(extract('我在评估工作量').filter((i) => i.attribute === 'employer')).toEqual([]);
    expect(extract('我在一家外企做财务').map((i) => [i.attribute, i.value])).toEqual([
      ['employer', '外企'],
      ['role', '财务'],
    ]);
    expect(extract('我在一家游戏公司做 UI 设计').map((i) => [i.attribute, i.value])).toEqual([
      ['employer', '游戏公司'],
      ['role', 'UI 设计'],
    ]);
  });

  it('given a product that is not the object of the verb, then it does not fill its category', () => {
    const zh = extract('双写验证我们决定用 Debezium 读 Oracle 的 LogMiner 来做数据比对');
    expect(zh.filter((i) => i.attribute === 'database')).toEqual([]);
    expect(extract("We're using Debezium to read Oracle's redo logs").filter((i) => i.attribute === 'database')).toEqual([]);
    expect(extract('我们用 PostgreSQL 和 Redis').map((i) => [i.attribute, i.value])).toEqual([
      ['database', 'PostgreSQL'],
      ['cache', 'Redis'],
    ]);
  });

  it('given "my dentist appointment is … with Dr. Alvarez", then one clause, the copula is a word, not "is" inside "dentist"', () => {
    expect(splitClauses('Also my dentist appointment is October 22 at 8am with Dr. Alvarez.')).toHaveLength(1);
    const item = only('Also my dentist appointment is October 22 at 8am with Dr. Alvarez.');
    expect(item.attribute).toBe('dentist-appointment');
    expect(item.value).toContain('Dr. Alvarez');
  });

  it("given \"Jess's birthday is October 3rd\", then the birthday is Jess's, not the user's", () => {
    expect(mergeKeyOf(only("Jess's birthday is October 3rd"))).toBe('jess/birthday');
    expect(mergeKeyOf(only('我老婆的生日是10月18号'))).toBe('wife/birthday');
  });

  it('given "每周二、四、六早上跑步", then the whole weekday list is the schedule', () => {
    expect(only('每周二、四、六早上跑步')).toMatchObject({ kind: 'fact', value: '每周二、四、六' });
    expect(only('I have piano every Tuesday at 4:30pm').value).toBe('every Tuesday at 4:30pm');
  });

  it('given an acknowledgement like "好，就这么定了" / "let\'s go with that", then no decision', () => {
    expect(extract('好，就这么定了。')).toEqual([]);
    expect(extract("Let's go with that.")).toEqual([]);
  });

  it('given a date typed with spaces ("推迟到明年 1 月 10 号了"), then the correction carries the date', () => {
    expect(only('推迟到明年 1 月 10 号了')).toMatchObject({ attribute: 'deadline', value: '明年 1 月 10 号' });
    expect(only('the deadline moved to January 10')).toMatchObject({ attribute: 'deadline', value: 'January 10' });
  });

  it('given an assistant recommendation not phrased with 推荐 / "I recommend", then it is still a recommendation', () => {
    expect(only('不辣的川菜可以去松云泽', 'assistant')).toMatchObject({ subject: 'assistant', value: '松云泽' });
    expect(extract('Then the Hoka Speedgoat 6 in wide would suit you better', 'assistant')[0]).toMatchObject({ subject: 'assistant' });
  });
});

describe('RuleExtractor: budgets scoped by what is being bought (rules-3)', () => {
  const budgets = (text: string) => extract(text).filter((i) => i.attribute.startsWith('budget'));

  it.each([
    ['想给我老婆挑个生日礼物，她 10 月 18 号生日，预算两千左右。', 'budget:生日礼物', '两千'],
    ['还想买个空气净化器，预算三千以内，家里养了两只猫。', 'budget:空气净化器', '三千'],
    ["I'm shopping for a road bike, budget around $1500", 'budget:road bike', '$1500'],
  ])('given "%s", then the budget is %s', (text, attribute, value) => {
    expect(budgets(text).map((i) => [i.attribute, i.value])).toEqual([[attribute, value]]);
    expect(budgets(text)[0].entities).toContain(attribute.slice('budget:'.length));
  });

  it('given a budget without a purchase named, then it stays unscoped', () => {
    expect(budgets('预算控制在三万以内').map((i) => i.attribute)).toEqual(['budget']);
    expect(purchaseOf('预算控制在三万以内')).toBeNull();
  });

  it('given a purchase cue followed by a sentence rather than a name, then no scope', () => {
    expect(purchaseOf('想买一个能放在客厅里又不占地方还能自动清洁的东西')).toBeNull();
  });
});

describe('RuleExtractor: procedures, rules for how the assistant should act (rules-5 on)', () => {
  const procedures = (text: string) => extract(text).filter((i) => i.kind === 'procedure');

  it.each([
    ['以后报价先给区间再给明细', 'user/procedure:quote'],
    ['always answer in English', 'user/procedure:response_language'],
    ['Please always answer in English.', 'user/procedure:response_language'],
    ['以后都用中文回答我', 'user/procedure:response_language'],
    ['别用表情包', 'user/procedure:emoji'],
    ['Never use emojis.', 'user/procedure:emoji'],
    ['代码示例用 TypeScript', 'user/procedure:code_examples'],
    ['Use TypeScript for code examples', 'user/procedure:code_examples'],
    ['Code examples in TypeScript, please', 'user/procedure:code_examples'],
    ['记住：以后回复我简短一点', 'user/procedure:length'],
  ])('given "%s", then one procedure with merge key %s, the rule as its value', (text, key) => {
    const found = procedures(text);
    expect(found.map((i) => mergeKeyOf(i))).toEqual([key]);
    expect(found[0].value.length).toBeGreaterThan(0);
    expect(text).toContain(found[0].value.replace(/^记住：/u, ''));
  });

  it('given "代码示例改成 Python", then a new rule on code examples, not a programming language of the user', () => {
    const items = extract('以后代码示例改成 Python');
    expect(items.map((i) => [i.kind, i.attribute])).toEqual([['procedure', 'procedure:code_examples']]);
  });

  it('given a rule that points back at what the turn said, then its content is the whole turn', () => {
    const text =
      'I prefer type hints everywhere, and I really dislike bare `except:` clauses, so keep that in mind when you write snippets.';
    const [rule] = procedures(text);
    expect(rule).toMatchObject({ attribute: 'procedure:code_examples', content: text });
    expect(procedures('以后写代码都按这个来：先写测试再写实现')[0]?.content ?? '').toContain('先写测试');
  });

  it('given "VS Code" in a clause, then it is not a rule about code examples', () => {
    expect(extract('别再给我推荐 VS Code 的插件了').some((i) => i.attribute === 'procedure:code_examples')).toBe(false);
  });

  it('given a rule naming no known topic, then a procedure of its own', () => {
    const [rule] = procedures('以后回答之前先确认我的需求');
    expect(rule.attribute).toMatch(/^procedure:/);
    expect(rule.attribute).not.toBe('procedure:');
  });

  it.each([
    ['我不用表情包'],
    ['I always answer emails in the morning'],
    ['这个问题用英文回答'],
    ['Answer this question in English'],
    ['中文特别难学'],
    ['每次代码评审都很慢'],
    ['English is hard'],
    ['please explain how Kafka works'],
    ["Please reply to John's email"],
    ['请你解释一下这个函数'],
    ["Don't reply yet"],
    ['帮我回复一下这封邮件'],
    ['报价太贵了'],
    ['我喜欢用 VS Code'],
    ['我们的技术栈是 Spring Boot'],
  ])('given "%s", then no procedure (the user\'s own habit, a one-off, or no instruction)', (text) => {
    expect(procedures(text)).toEqual([]);
  });

  it("given an assistant turn that promises a rule, then it is not the user's procedure", () => {
    expect(extract('好的，以后都用中文回答你', 'assistant').filter((i) => i.kind === 'procedure')).toEqual([]);
  });
});

describe('RuleExtractor: plans and recommendations a later reference can find (rules-10)', () => {
  const after = (text: string, previousText: string) =>
    extractWithRules({
      tenantId: 'acme',
      userId: 'u-1',
      sessionId: 's-1',
      turnId: 'turn-2',
      role: 'user',
      text,
      previousText,
      occurredAt: AT,
      ephemeral: false,
      signals: [],
    });

  it('given a comma inside a quoted title, then the clause is not cut there: the whole title is the recommendation and its line', () => {
    expect(splitClauses("I'd recommend 'Thinking, Fast and Slow' by Daniel Kahneman.")).toHaveLength(1);
    expect(splitClauses('推荐你读《你好，旧时光》，很温暖')).toEqual(['推荐你读《你好，旧时光》', '很温暖']);
    expect(only("I'd recommend 'Thinking, Fast and Slow' by Daniel Kahneman.", 'assistant')).toMatchObject({
      value: 'Thinking, Fast and Slow',
      content: "I'd recommend 'Thinking, Fast and Slow' by Daniel Kahneman",
    });
    // Apostrophes open no quotation: "the kids' toys, and I'm tired" is still two clauses.
    expect(splitClauses("the kids' toys are everywhere, and I'm tired")).toHaveLength(2);
  });

  it('given "let\'s" or "here\'s" first, then a contraction, not a person whose fact it is', () => {
    expect(only("Let's go with Postgres")).toMatchObject({ kind: 'decision', subject: 'user', attribute: 'database' });
    expect(extract("Here's my plan: I will run every day").every((item) => item.subject === 'user')).toBe(true);
  });

  it('given a decision opening a list with a colon, then the whole list is its value and its line', () => {
    expect(only("Let's settle the launch: beta on March 3, general availability on April 15.")).toMatchObject({
      kind: 'decision',
      value: 'launch: beta on March 3, general availability on April 15',
      content: "Let's settle the launch: beta on March 3, general availability on April 15",
    });
    expect(only('就这么定了：周三上线灰度，周五全量')).toMatchObject({
      value: '周三上线灰度，周五全量',
      content: '就这么定了：周三上线灰度，周五全量',
    });
  });

  it("given an acceptance after the other party's proposal, then the proposal is what is decided", () => {
    const proposal = '建议方案：第一步先迁移只读的报表库，第二步迁订单库，第三步切换写流量。';
    expect(after('好，就按这个方案来', proposal)).toEqual([
      expect.objectContaining({
        kind: 'decision',
        value: '建议方案：第一步先迁移只读的报表库，第二步迁订单库，第三步切换写流量',
        content: '好，就按这个方案来 — 建议方案：第一步先迁移只读的报表库，第二步迁订单库，第三步切换写流量',
        // found, like its turn's episode, by its attribute's word: its line is not what its turn said
        keys: ['decision'],
      }),
    ]);
    expect(after("OK, let's go with that plan.", 'I would suggest Lake Tahoe, two nights.')).toEqual([
      expect.objectContaining({ kind: 'decision', value: 'I would suggest Lake Tahoe, two nights' }),
    ]);
    expect(after('好，就这么定了', '那就周三上线灰度，周五全量吧。')).toEqual([
      expect.objectContaining({ value: '那就周三上线灰度，周五全量' }),
    ]);
  });

  it('given an acceptance with no proposal before it, then it stays as said, and a bare one decides nothing', () => {
    expect(only('好，就按这个方案来')).toMatchObject({ kind: 'decision', value: '这个方案' });
    expect(extract('好，就这么定了')).toEqual([]);
    expect(extract("Let's go with that.")).toEqual([]);
  });

  it('given a decision about something named, then a proposal before it changes nothing', () => {
    expect(after('we decided to go with Redis', 'What cache do you use?')).toEqual([expect.objectContaining({ value: 'go with Redis' })]);
  });
});
