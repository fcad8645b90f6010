import type { TurnRole } from '@engram/contracts';
import type { ExtractedItemDraft } from '../extraction/extraction.strategy';
import { extractWithRules } from './rule-extractor';

/**
 * One table per rule family and language: a turn, and the items the rules read from it, each as
 * "<kind> <subject>/<attribute> = <value>", with "(retract)" for a retraction and "[named]" /
 * "[open]" for a correction. A new cue or pattern in a language pack gets a row here.
 */
type Rows = readonly (readonly [turn: string, items: readonly string[]])[];

const FAMILIES: Readonly<Record<string, { readonly role: TurnRole; readonly zh: Rows; readonly en: Rows }>> = {
  identity: {
    role: 'user',
    zh: [
      ['我叫老周', ['profile user/name = 老周']],
      ['我在字节跳动工作', ['profile user/employer = 字节跳动']],
      ['我在北京上班', ['profile user/location = 北京']],
      ['我现在在上海', ['profile user/location = 上海']],
      ['我是一名后端工程师', ['profile user/role = 后端工程师']],
      ['我在一家外企做财务', ['profile user/employer = 外企', 'profile user/role = 财务']],
      ['我老家在成都', ['profile user/hometown = 成都']],
      ['现在在蚂蚁集团上班', ['profile user/employer = 蚂蚁集团']],
      ['现在在一家设计公司实习', ['profile user/employer = 一家设计公司', 'profile user/role = 实习生']],
      ['我搬到上海了', ['profile user/location = 上海']],
      ['我跳槽到字节跳动了', ['profile user/employer = 字节跳动']],
      ['我对花生过敏', ['profile user/allergy:花生 = 花生']],
      ['我是意大利人', ['profile user/nationality = 意大利']],
      ['我老婆不吃香菜', ['preference wife/preference:香菜 = avoid']],
      // The names of the user's people and animals: the user's family, pinned.
      ['我女儿叫小美', ['profile user/family:daughter = 小美']],
      ['我养了一只金毛，叫旺财', ['profile user/family:金毛 = 旺财']],
      ['我们家去年领养了一只猫，它叫年糕', ['profile user/family:猫 = 年糕']],
      // Someone the user does not name: nothing of it is the user's.
      ['我家的猫叫咪咪', ['profile user/family:猫 = 咪咪']],
      ['我们公司叫字节跳动', ['profile user/employer = 字节跳动']],
      ['他不吃香菜', []],
    ],
    en: [
      ['My name is Alex', ['profile user/name = Alex']],
      ["I'm Alex", ['profile user/name = Alex']],
      ["I'm Italian", ['profile user/nationality = Italian']],
      ['I work at Stripe as a backend engineer', ['profile user/employer = Stripe', 'profile user/role = backend engineer']],
      ['I joined a gym', []],
      ['I live in Berlin', ['profile user/location = Berlin']],
      ['We finally moved to Leeds last weekend!', ['profile user/location = Leeds']],
      ['I moved to Lisbon', ['profile user/location = Lisbon']],
      ['the meeting moved to Friday', ['fact user/meeting = Friday [named]']],
      ["I'm in Berlin this week for a conference", ['profile user/current_location = Berlin']],
      ["I'm in a meeting", []],
      ["I'm from Lyon", ['profile user/hometown = Lyon']],
      ["I'm allergic to peanuts", ['profile user/allergy:peanuts = peanuts']],
      ["Jess's birthday is October 3rd", ['profile jess/birthday = October 3rd']],
      ["My daughter's name is Lily", ['profile user/family:daughter = Lily']],
      ['We adopted a kitten named Miso.', ['profile user/family:kitten = Miso']],
      ['I have a golden retriever, called Biscuit', ['profile user/family:golden-retriever = Biscuit']],
      ['Our dog is called Rex.', ['profile user/family:dog = Rex']],
      ['Our company is called Acme', ['profile user/employer = Acme']],
      ['My favourite band is called Radiohead', ['preference user/favorite:band = Radiohead']],
      ['She usually drinks tea', []],
    ],
  },
  constraints: {
    role: 'user',
    zh: [
      ['我吃素', ['profile user/diet:吃素 = 吃素']],
      ['我有高血压，一直在吃药控制', ['profile user/health:高血压 = 高血压']],
      ['我有过敏性鼻炎', ['profile user/health:过敏性鼻炎 = 过敏性鼻炎']],
      ['我是色盲', ['profile user/accessibility:色盲 = 色盲']],
      ['我妈妈坐轮椅', ['profile mother/accessibility:坐轮椅 = 坐轮椅']],
      ['我有两个孩子', []],
      ['我不是素食者', []],
      // A constraint denied: the same key's family and thing, the value none (the resolver finds the constraint).
      ['我可以用青霉素', ['preference user/preference:青霉素 = none']],
      ['医生说我其实对青霉素不过敏', ['profile user/allergy:青霉素 = none']],
      ['我不过敏了', []],
      ['我女儿现在可以吃花生了', ['preference daughter/preference:花生 = none']],
      ['我现在吃香菜了', ['preference user/preference:香菜 = none']],
      ['我不吃素了', ['profile user/diet:吃素 = none']],
      ['我没有糖尿病了', ['profile user/health:糖尿病 = none']],
      ['我不用轮椅了', ['profile user/accessibility:轮椅 = none']],
      ['你可以用英文回答', []],
    ],
    en: [
      ["I'm vegetarian, have been for ten years", ['profile user/diet:vegetarian = vegetarian']],
      ["I'm lactose intolerant", ['profile user/diet:lactose-intolerant = lactose intolerant']],
      ['I have diabetes', ['profile user/health:diabetes = diabetes']],
      ['I have arthritis in my knee', ['profile user/health:arthritis = arthritis']],
      ['I use a wheelchair, so I need step-free access', ['profile user/accessibility:wheelchair = wheelchair']],
      ["I'm deaf in one ear", ['profile user/accessibility:deaf = deaf']],
      ["I'm not vegetarian", []],
      ['We went to a vegetarian restaurant', []],
      ['I have two kids', []],
      ['I have a lot of work', []],
      ['I can take penicillin now', ['preference user/preference:penicillin = none']],
      ["I'm not allergic to penicillin after all", ['profile user/allergy:penicillin = none']],
      ['My daughter can eat peanuts now', ['preference daughter/preference:peanuts = none']],
      ['I eat pork again', ['preference user/preference:pork = none']],
      ["I'm not vegetarian anymore", ['profile user/diet:vegetarian = none']],
      ["I don't use a wheelchair anymore", ['profile user/accessibility:wheelchair = none']],
      ['I can take a break', []],
    ],
  },
  corrections: {
    role: 'user',
    zh: [
      ['不是三万，是五万', ['fact user/budget = 五万 [named]']],
      ['预算提到五万了', ['fact user/budget = 五万 [named]']],
      ['忘掉我之前说的喜欢吃榴莲', ['preference user/preference:榴莲 =  (retract) [named]']],
      ['当我没说', ['fact user/@last =  (retract)']],
      ['不对，改成9点', ['fact user/@last = 9点 [open]']],
      ['我的收货地址改成世纪大道100号', ['profile user/shipping_address = 世纪大道100号 [named]']],
      ['耳机还是买黑色的吧', ['fact user/耳机 = 黑色 [named]']],
      ['不看恐怖片了', ['preference user/preference:恐怖片 =  (retract) [named]']],
      ['其实应该是周四', ['task user/deadline = 周四 [named]']],
    ],
    en: [
      ["Actually, it's 50k", ['fact user/budget = 50k [named]']],
      ['not MySQL but PostgreSQL', ['fact user/database = PostgreSQL [named]']],
      ['set the standup to 9am', ['fact user/standup = 9am [named]']],
      ['forget that', ['fact user/@last =  (retract)']],
      ['scratch that', ['fact user/@last =  (retract)']],
      ['forget what I said about durian', ['fact user/@last =  (retract) [open]']],
      ['no, make it 10', ['fact user/@last = 10 [open]']],
      // "instead" said last changes what was said before, wherever it was (the resolver finds it by subject).
      ['These days I drive to work instead', ['fact user/@last = These days I drive to work [open]']],
    ],
  },
  plans: {
    role: 'user',
    zh: [
      ['我们决定用 Kafka', ['decision user/message_queue = Kafka']],
      ['就这么定了：周三上线灰度，周五全量', ['decision user/decision:周三上线灰度 = 周三上线灰度，周五全量']],
      ['说好了春节回我老家过', ['decision user/decision:春节回我老家过 = 春节回我老家过']],
      ['下周五前交报告', ['task user/deadline = 下周五']],
      ['我需要在周五前写完周报', ['task user/deadline:写完周报 = 周五']],
      ['项目截止日期是12月1日', ['task user/deadline = 12月1日']],
      ['我们每周三下午开例会', ['fact user/weekly_meeting = 每周三']],
      ['我正在学 Rust', ['task user/task:rust = Rust']],
      ['想买个空气净化器，预算三千以内', ['fact user/budget:空气净化器 = 三千']],
    ],
    en: [
      ['we decided to go with Redis', ['decision user/decision:go-with-redis = go with Redis']],
      ["Let's go with Postgres", ['decision user/database = PostgreSQL']],
      [
        "Let's settle the launch: beta on March 3, general availability on April 15.",
        ['decision user/decision:launch-beta-on-march-3 = launch: beta on March 3, general availability on April 15'],
      ],
      ['we agreed to ship the beta first', ['decision user/decision:ship-the-beta-first = ship the beta first']],
      ['the deadline is Friday', ['task user/deadline = Friday']],
      ['send the report by Friday', ['task user/deadline:send-the-report = Friday']],
      ['standup is every day at 9:30', ['fact user/standup = every day at 9:30']],
      ["I'm working on the billing service", ['task user/task:billing-service = billing service']],
      ['I need to renew my passport', ['task user/task:renew-my-passport = renew my passport']],
      ['budget is $5,000', ['fact user/budget = $5,000']],
    ],
  },
  preferences: {
    role: 'user',
    zh: [
      ['我喜欢用 VS Code', ['preference user/editor = VS Code']],
      ['我不吃辣', ['preference user/preference:辣 = avoid']],
      ['我老婆一点辣都不能吃', ['preference wife/preference:辣 = avoid']],
      ['我周末经常去爬山', ['preference user/preference:爬山 = habit']],
      ['我不喜欢吃辣的菜', ['preference user/preference:辣的菜 = avoid']],
      // 吃亏 is a word of its own ("to lose out"), not eating.
      ['我不喜欢吃亏', ['preference user/preference:亏 = dislike']],
      ['乌龙茶是我最爱的茶', ['preference user/preference:乌龙茶 = like']],
      ['美式咖啡是我的最爱', ['preference user/preference:美式咖啡 = like']],
      ['我平时最常喝的就是乌龙茶', ['preference user/preference:乌龙茶 = like']],
      ['这是我最喜欢的一家店', []],
      ['我不喜欢开会', ['preference user/preference:会 = dislike']],
      ['我讨厌香菜', ['preference user/preference:香菜 = dislike']],
      ['我习惯早上跑步', ['preference user/preference:早上跑步 = habit']],
      ['早上跑步是我多年的习惯', ['preference user/preference:早上跑步 = habit']],
      ['以后给我订靠过道的座位吧', ['preference user/preference:靠过道的座位 = like [named]']],
    ],
    en: [
      ['I prefer VS Code for TypeScript work', ['preference user/editor = VS Code']],
      ['I never drink coffee after 3pm', ['preference user/preference:coffee = avoid']],
      ["I can't eat gluten", ['preference user/preference:gluten = avoid']],
      ['Window seats are my favourite when I fly', ['preference user/preference:window-seats = like']],
      ['Neovim is my editor of choice', ['preference user/editor = Neovim']],
      ['I really love Radiohead', ['preference user/preference:radiohead = like']],
      ['That is my favourite', []],
      ['I hate meetings before 10am', ['preference user/preference:meetings = dislike']],
      ['I usually run in the morning', ['preference user/preference:run = habit']],
      ['I go hiking most weekends', ['preference user/preference:hiking = habit']],
      ["I can't stand spicy food", ['preference user/preference:spicy-food = avoid']],
      ["I don't like eating spicy food", ['preference user/preference:spicy-food = avoid']],
      ['I hate eating out', ['preference user/preference:out = dislike']],
      ['From now on book me aisle seats', ['preference user/preference:aisle-seats = like [named]']],
      ["I don't watch horror movies anymore", ['preference user/preference:horror-movies =  (retract) [named]']],
      ['we go sailing every summer', []],
      ['my favorite editor is Zed', ['preference user/editor = Zed']],
    ],
  },
  procedures: {
    role: 'user',
    zh: [
      ['以后用中文回答', ['procedure user/procedure:response_language = 以后用中文回答']],
      ['别用表情包', ['procedure user/procedure:emoji = 别用表情包']],
      ['代码示例用 TypeScript', ['procedure user/procedure:code_examples = 代码示例用 TypeScript']],
      ['以后报价先给区间再给明细', ['procedure user/procedure:quote = 以后报价先给区间再给明细']],
      ['这个问题用英文回答', []],
    ],
    en: [
      ['always answer in English', ['procedure user/procedure:response_language = always answer in English']],
      ['never use emojis', ['procedure user/procedure:emoji = never use emojis']],
      ['use TypeScript for code examples', ['procedure user/procedure:code_examples = use TypeScript for code examples']],
      ['please keep answers short from now on', ['procedure user/procedure:length = please keep answers short from now on']],
      ['just this once, answer in French', []],
    ],
  },
  facts: {
    role: 'user',
    zh: [
      ['数据库用 PostgreSQL', ['fact user/database = PostgreSQL']],
      ['我们的技术栈是 Spring Boot', ['profile user/tech_stack = Spring Boot']],
      ['我们项目用的是 NestJS 和 MongoDB', ['fact user/framework = NestJS', 'fact user/database = MongoDB']],
      ['用 Redis 做缓存', ['fact user/cache = Redis']],
      ['我们团队用 Jenkins 做 CI', ['fact user/ci = Jenkins']],
      ['我现在开的是一辆本田思域', ['profile user/car = 本田思域']],
      ['思域卖掉了，换了一辆特斯拉 Model 3', ['profile user/car = 特斯拉 Model 3']],
      ['以后寄到深圳市南山区科技园8号', ['profile user/shipping_address = 深圳市南山区科技园8号']],
      ['我坐了一辆出租车', []],
      ['记住我女儿的生日是5月3日', ['profile daughter/birthday = 5月3日']],
    ],
    en: [
      ['we use Postgres as our database', ['fact user/database = PostgreSQL']],
      ['I drive a Toyota Corolla', ['profile user/car = Toyota Corolla']],
      ['Ship my orders to 12 Baker Street, please.', ['profile user/shipping_address = 12 Baker Street']],
      ['ship it to the office', []],
      // A request said as standing ("from now on"), with the address in apposition after a comma.
      ['Please send everything to my new address, 48 Elm Road, from now on.', ['profile user/shipping_address = 48 Elm Road']],
      ['Please send this to 48 Elm Road', []],
      ['our stack is NestJS', ['profile user/tech_stack = NestJS']],
      ["we're on AWS and use Kafka", ['fact user/cloud = AWS']],
      ['remember that the office code is 4321', ['fact user/note:office-code-is-4321 = office code is 4321']],
      ['my email is [EMAIL]', []],
    ],
  },
  assistant: {
    role: 'assistant',
    zh: [
      ['我推荐你读《三体》', ['fact assistant/recommendation:三体 = 三体']],
      ['推荐你读《你好，旧时光》', ['fact assistant/recommendation:你好-旧时光 = 你好，旧时光']],
      ['我会提醒你周五交报告', ['task assistant/promise:周五交报告 = 周五交报告']],
      ['总之先用 Kafka', ['fact assistant/conclusion:先用-kafka = 先用 Kafka']],
      ['你喜欢 VS Code 吗？', []],
    ],
    en: [
      ["I'd recommend trying Hakata Ramen Ichiran", ['fact assistant/recommendation:hakata-ramen-ichiran = Hakata Ramen Ichiran']],
      [
        "I'd recommend 'Thinking, Fast and Slow' by Daniel Kahneman.",
        ['fact assistant/recommendation:thinking-fast-and-slow = Thinking, Fast and Slow'],
      ],
      ["I'll remind you on Friday", ['task assistant/promise:on-friday = on Friday']],
      ['the conclusion is to start with Postgres', ['fact assistant/conclusion:start-with-postgres = start with Postgres']],
      ['You prefer VS Code, right?', []],
    ],
  },
};

function read(text: string, role: TurnRole): string[] {
  const items = extractWithRules({
    tenantId: 'acme',
    userId: 'u-1',
    sessionId: 's-1',
    turnId: 'turn-1',
    role,
    text,
    occurredAt: '2026-11-30T08:00:00.000Z',
    ephemeral: false,
    signals: [],
  });
  return items.map(summary);
}

function summary(item: ExtractedItemDraft): string {
  const retract = item.operation === 'retract' ? ' (retract)' : '';
  const correction = item.correction ? ` [${item.correction}]` : '';
  return `${item.kind} ${item.subject}/${item.attribute} = ${item.value}${retract}${correction}`;
}

describe.each(Object.entries(FAMILIES))('the %s rules', (_family, { role, zh, en }) => {
  it.each(zh)('zh: "%s" → %j', (turn, items) => expect(read(turn, role)).toEqual(items));
  it.each(en)('en: "%s" → %j', (turn, items) => expect(read(turn, role)).toEqual(items));
});
