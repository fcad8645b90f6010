#!/usr/bin/env node
// Builds current-truth.jsonl, the scenario set of `engram eval-truth`: what recall must tell as true
// *now* after changes of mind and of circumstance, standing constraints, paraphrases said again,
// temporary states, references to earlier sessions, questions in the other language, and
// paraphrased questions. Each scenario is one user; its sessions are days apart with other
// sessions (small talk, unrelated facts) in between, as in a real chat log.
//
//   node test/eval/build-truth.js > test/eval/current-truth.jsonl
//
// A scenario: { id, category, sessions: [[day, [turn…]]…], checks: [[day, query, { expect, reject, once }]] }.
// A turn is 'text' (the user) or ['assistant', 'text']. `day` counts from 2026-10-01 (fractions are
// hours of the day). A check is asked in a new session of its own.

const BASE = Date.parse('2026-10-01T09:00:00Z');
const DAY = 86_400_000;

/** Sessions of small talk and unrelated facts, put between a scenario's own sessions. */
const FILLER = {
  zh: [
    ['帮我查一下明天上海的天气', ['assistant', '明天上海多云，18 到 24 度。']],
    ['把“会议纪要”翻译成英文', ['assistant', 'Meeting minutes.']],
    ['哈哈好的', ['assistant', '还有什么可以帮你的吗？']],
    ['美元兑人民币现在多少', ['assistant', '大约 7.1。']],
  ],
  en: [
    ["What's the weather in Chicago tomorrow?", ['assistant', 'Cloudy, around 12°C.']],
    ['Translate "good morning" into Spanish', ['assistant', 'Buenos días.']],
    ['ok thanks', ['assistant', 'Anything else?']],
    ['How many ounces in a pound?', ['assistant', 'Sixteen.']],
  ],
};

const zh = 'zh';
const en = 'en';

// prettier-ignore
const SCENARIOS = [
  // ── change of mind: a later statement on the same subject replaces the earlier one ──
  { id: 'seat-zh', lang: zh, category: 'change-of-mind',
    sessions: [[0, ['订火车票的话我比较喜欢靠窗的座位', ['assistant', '好的，以后优先帮你选靠窗。']]], [9, ['以后给我订靠过道的座位吧，方便起身']]],
    checks: [[12, '帮我订明天去广州的高铁票', { expect: ['过道'], reject: ['喜欢靠窗'] }]] },
  { id: 'milk-en', lang: en, category: 'change-of-mind',
    sessions: [[0, ['I like my latte with oat milk.']], [8, ["Actually I've switched to almond milk now, oat milk upsets my stomach."]]],
    checks: [[11, 'Order my usual latte', { expect: ['almond'], reject: ['latte with oat milk'] }]] },
  { id: 'report-zh', lang: zh, category: 'change-of-mind',
    sessions: [[0, ['周报我习惯用表格的形式来写']], [6, ['周报以后改成纯文字吧，表格太麻烦了']]],
    checks: [[10, '帮我写本周的周报', { expect: ['纯文字'], reject: ['习惯用表格'] }]] },
  { id: 'holiday-en', lang: en, category: 'change-of-mind',
    sessions: [[0, ["We're planning to fly to Tokyo for the winter holidays."]], [12, ["Change of plans: we're driving up to Montreal for the winter holidays instead."]]],
    checks: [[15, 'What are my plans for the winter holidays?', { expect: ['Montreal'], reject: ['Tokyo'] }]] },
  { id: 'movies-zh', lang: zh, category: 'change-of-mind',
    sessions: [[0, ['我特别喜欢看恐怖片']], [10, ['最近口味变了，不看恐怖片了，现在更喜欢看纪录片']]],
    checks: [[14, '周末推荐一部电影给我', { expect: ['纪录片'], reject: ['特别喜欢看恐怖片'] }]] },
  { id: 'meetings-en', lang: en, category: 'change-of-mind',
    sessions: [[0, ['I prefer to have my meetings in the morning.']], [9, ["I've changed my mind, afternoons work much better for meetings now."]]],
    checks: [[13, 'When should I schedule the sync with Priya?', { expect: ['afternoon'], reject: ['meetings in the morning'] }]] },
  { id: 'headphones-zh', lang: zh, category: 'change-of-mind',
    sessions: [[0, ['我打算买那款白色的降噪耳机']], [5, ['耳机还是买黑色的吧，不容易脏']]],
    checks: [[7, '我打算买什么颜色的耳机', { expect: ['黑色'], reject: ['买那款白色'] }]] },
  { id: 'answers-en', lang: en, category: 'change-of-mind',
    sessions: [[0, ['Please keep your answers short and in bullet points.']], [11, ['From now on I want detailed explanations in full paragraphs, not bullet points.']]],
    checks: [[14, 'Explain how DNS resolution works', { expect: ['paragraphs'], reject: ['short and in bullet points'] }]] },
  { id: 'tea-zh', lang: zh, category: 'change-of-mind',
    sessions: [[0, ['下午茶我一般点奶茶']], [8, ['我现在戒奶茶了，下午茶改喝美式']]],
    checks: [[12, '帮我点一份下午茶', { expect: ['美式'], reject: ['一般点奶茶'] }]] },

  // ── change of circumstance: a life change replaces the old state ──
  { id: 'job-zh', lang: zh, category: 'change-of-circumstance',
    sessions: [[0, ['我在招商银行做风控']], [20, ['上个月我已经从招行离职了，现在在蚂蚁集团上班']]],
    checks: [[24, '我现在在哪家公司上班', { expect: ['蚂蚁'], reject: ['在招商银行做风控'] }]] },
  { id: 'city-en', lang: en, category: 'change-of-circumstance',
    sessions: [[0, ['I live in Manchester.']], [25, ['We finally moved to Leeds last weekend!']]],
    checks: [[28, 'Recommend a gym near where I live', { expect: ['Leeds'], reject: ['live in Manchester'] }]] },
  { id: 'car-zh', lang: zh, category: 'change-of-circumstance',
    sessions: [[0, ['我现在开的是一辆本田思域']], [30, ['思域卖掉了，换了一辆特斯拉 Model 3']]],
    checks: [[33, '我的车该做哪些保养', { expect: ['Model 3'], reject: ['开的是一辆本田思域'] }]] },
  { id: 'phone-en', lang: en, category: 'change-of-circumstance',
    sessions: [[0, ['My phone is a Pixel 7.']], [18, ['Upgraded to an iPhone 16 yesterday.']]],
    checks: [[20, "How do I turn on my phone's hotspot?", { expect: ['iPhone'], reject: ['Pixel 7'] }]] },
  { id: 'student-zh', lang: zh, category: 'change-of-circumstance',
    sessions: [[0, ['我是大三的学生，学工业设计']], [40, ['我已经毕业了，现在在一家设计公司实习']]],
    checks: [[43, '帮我写一段自我介绍', { expect: [['毕业', '实习']], reject: ['我是大三的学生'] }]] },
  { id: 'address-en', lang: en, category: 'change-of-circumstance',
    sessions: [[0, ['Ship my orders to 12 Baker Street, please.']], [15, ['Please send everything to my new address, 48 Elm Road, from now on.']]],
    checks: [[18, 'Where will my next order be delivered?', { expect: ['Elm Road'], reject: ['Baker Street'] }]] },
  { id: 'ci-zh', lang: zh, category: 'change-of-circumstance',
    sessions: [[0, ['我们团队用 Jenkins 做 CI']], [21, ['我们已经把 CI 迁到 GitHub Actions 了']]],
    checks: [[23, 'CI 流水线怎么加依赖缓存', { expect: ['GitHub Actions'], reject: ['用 Jenkins 做 CI'] }]] },
  { id: 'sport-en', lang: en, category: 'change-of-circumstance',
    sessions: [[0, ["I'm training for a half marathon in March."]], [14, ['I hurt my ankle badly, so no more running for now; I swim three times a week instead.']]],
    checks: [[17, 'Suggest a workout plan for this week', { expect: ['swim'], reject: ['training for a half marathon'] }]] },

  // ── constraints: standing facts reach prompts that never name them ──
  { id: 'seafood-zh', lang: zh, category: 'constraints',
    sessions: [[0, ['我对海鲜过敏，吃了会起疹子']]],
    checks: [[20, '周末想去吃自助餐，有什么推荐', { expect: ['海鲜'] }]] },
  { id: 'eggs-en', lang: en, category: 'constraints',
    sessions: [[0, ['My son is allergic to eggs.']]],
    checks: [[25, "What should I bake for my son's birthday party?", { expect: ['egg'] }]] },
  { id: 'bp-zh', lang: zh, category: 'constraints',
    sessions: [[0, ['我有高血压，一直在吃药控制']]],
    checks: [[18, '早餐吃什么比较好', { expect: ['高血压'] }]] },
  { id: 'veg-en', lang: en, category: 'constraints',
    sessions: [[0, ["I'm vegetarian, have been for ten years."]]],
    checks: [[30, 'Plan a dinner menu for Friday night', { expect: ['vegetarian'] }]] },
  { id: 'alcohol-zh', lang: zh, category: 'constraints',
    sessions: [[0, ['我不喝酒，一滴都不碰']]],
    checks: [[15, '同学聚会的时候点什么喝的好', { expect: ['不喝酒'] }]] },
  { id: 'wheelchair-en', lang: en, category: 'constraints',
    sessions: [[0, ['I use a wheelchair, so I need step-free access everywhere.']]],
    checks: [[22, 'Find me a hotel in Rome for next month', { expect: ['wheelchair'] }]] },
  { id: 'spicy-zh', lang: zh, category: 'constraints',
    sessions: [[0, ['我老婆一点辣都不能吃']]],
    checks: [[16, '周末家庭聚餐推荐几个菜', { expect: ['辣'] }]] },
  { id: 'lactose-en', lang: en, category: 'constraints',
    sessions: [[0, ["I'm lactose intolerant."]]],
    checks: [[19, 'What dessert should I order tonight?', { expect: ['lactose'] }]] },

  // ── duplicates: a fact said again in other words is one memory ──
  { id: 'oolong-zh', lang: zh, category: 'duplicates',
    sessions: [[0, ['我喜欢喝乌龙茶']], [7, ['乌龙茶是我最爱的茶']], [15, ['我平时最常喝的就是乌龙茶']]],
    checks: [[18, '我爱喝什么茶', { expect: ['乌龙'], once: ['乌龙'] }]] },
  { id: 'window-en', lang: en, category: 'duplicates',
    sessions: [[0, ['I prefer window seats on planes.']], [9, ['Window seats are my favourite when I fly.']]],
    checks: [[12, 'Book me a flight to Denver', { expect: ['window'], once: ['window'] }]] },
  { id: 'sichuan-zh', lang: zh, category: 'duplicates',
    sessions: [[0, ['我喜欢吃川菜']], [6, ['川菜是我最喜欢的菜系']]],
    checks: [[10, '晚上吃什么菜系好', { expect: ['川菜'], once: ['川菜'] }]] },
  { id: 'hiking-en', lang: en, category: 'duplicates',
    sessions: [[0, ['I love hiking.']], [8, ['Hiking is my favourite hobby.']], [16, ['I go hiking most weekends.']]],
    checks: [[19, 'What do I like to do on weekends?', { expect: ['hiking'], once: ['hiking'] }]] },
  { id: 'running-zh', lang: zh, category: 'duplicates',
    sessions: [[0, ['我每天早上都去跑步']], [10, ['早上跑步是我多年的习惯']]],
    checks: [[13, '我早上一般做什么运动', { expect: ['跑步'], once: ['跑步'] }]] },
  { id: 'neovim-en', lang: en, category: 'duplicates',
    sessions: [[0, ['I write all my code in Neovim.']], [12, ['Neovim is my editor of choice.']]],
    checks: [[15, 'Which editor plugins should I install for Go?', { expect: ['Neovim'], once: ['Neovim'] }]] },
  { id: 'cat-zh', lang: zh, category: 'duplicates',
    sessions: [[0, ['我喜欢猫']], [9, ['猫是我最喜欢的动物']]],
    checks: [[11, '我喜欢什么动物', { expect: ['猫'], once: ['猫'] }]] },
  { id: 'band-en', lang: en, category: 'duplicates',
    sessions: [[0, ['My favourite band is Radiohead.']], [10, ['I really love Radiohead.']]],
    checks: [[14, 'Recommend me some music', { expect: ['Radiohead'], once: ['Radiohead'] }]] },

  // ── temporary states: what states its own time scope expires with it ──
  { id: 'headache-zh', lang: zh, category: 'temporary',
    sessions: [[0, ['今天头疼得厉害，先别跟我聊工作']]],
    checks: [[0.2, '帮我安排一下今天下午的工作', { expect: ['头疼'] }], [10, '帮我安排一下下周的工作', { reject: ['头疼'] }]] },
  { id: 'berlin-en', lang: en, category: 'temporary',
    sessions: [[0, ["I'm in Berlin this week for a conference."]]],
    checks: [[2, "What's the weather like where I am?", { expect: ['Berlin'] }], [21, "What's the weather like where I am?", { reject: ['Berlin'] }]] },
  { id: 'trip-zh', lang: zh, category: 'temporary',
    sessions: [[0, ['这两天在出差，消息回得会慢一点']]],
    checks: [[1, '帮我回复一下客户的消息', { expect: ['出差'] }], [14, '帮我回复一下客户的消息', { reject: ['出差'] }]] },
  { id: 'carryon-en', lang: en, category: 'temporary',
    sessions: [[0, ["For this trip I'll only pack a carry-on."]]],
    checks: [[0.3, 'What should I pack for this trip?', { expect: ['carry-on'] }], [30, 'Help me pack for my ski holiday', { reject: ['carry-on'] }]] },
  { id: 'fitness-zh', lang: zh, category: 'temporary',
    sessions: [[0, ['这周先不要给我推荐健身课']]],
    checks: [[2, '推荐几节健身课程', { expect: ['先不要'] }], [15, '推荐几节健身课程', { reject: ['先不要给我推荐健身课'] }]] },
  { id: 'cafe-en', lang: en, category: 'temporary',
    sessions: [[0, ["Today I'm working from the café downstairs."]]],
    checks: [[0.2, 'Where am I working from today?', { expect: ['café'] }], [12, 'Where do I usually work from?', { reject: ['café downstairs'] }]] },
  { id: 'template-zh', lang: zh, category: 'temporary',
    sessions: [[0, ['我们公司 PPT 的主色一律用橙色']], [3, ['帮我做个汇报PPT', ['assistant', '好的，有蓝色和灰色两套模板。'], '这次先用蓝色的模板']]],
    checks: [[4.2, '帮我做一个新的培训PPT', { expect: ['橙色'], reject: ['蓝色的模板'] }]] },
  { id: 'staging-en', lang: en, category: 'temporary',
    sessions: [[0, ['Our production database is Postgres 15.']], [3, ['Help me write the migration script', ['assistant', 'Sure. Which database should it target?'], 'Use the staging database for this task.']]],
    checks: [[4.5, 'Run the new billing migration against the database', { expect: ['Postgres'], reject: ['staging database'] }]] },

  // ── references: "last time", "that plan", "what I asked you to remember", "how did it go" ──
  { id: 'plan-zh', lang: zh, category: 'references',
    sessions: [[0, ['数据库迁移你觉得该怎么分步做？', ['assistant', '建议方案：第一步先迁移只读的报表库，第二步迁订单库，第三步切换写流量。'], '好，就按这个方案来']], [5, ['今天有点累']]],
    checks: [[9, '就按上次说的方案办吧，第一步是什么', { expect: ['报表库'] }]] },
  { id: 'book-en', lang: en, category: 'references',
    sessions: [[0, ['Any book on decision making?', ['assistant', "I'd recommend 'Thinking, Fast and Slow' by Daniel Kahneman."]]], [6, ['I made pasta tonight.']]],
    checks: [[10, 'What was that book you recommended last time?', { expect: ['Thinking, Fast and Slow'] }]] },
  { id: 'port-zh', lang: zh, category: 'references',
    sessions: [[0, ['帮我记一下：测试环境的端口是 8443']], [4, ['中午吃了碗面']]],
    checks: [[8, '我之前让你记的那个端口是多少', { expect: ['8443'] }]] },
  { id: 'limit-en', lang: en, category: 'references',
    sessions: [[0, ['Remember that the partner API rate limit is 300 requests per minute.']], [5, ['My sister visited today.']]],
    checks: [[9, 'What was the limit I asked you to remember?', { expect: ['300'] }]] },
  { id: 'interview-zh', lang: zh, category: 'references',
    sessions: [[0, ['我下周要去面试字节的产品岗']], [9, ['面试过了！下个月入职']]],
    checks: [[12, '那个面试后来怎么样了', { expect: ['面试过了'] }]] },
  { id: 'migration-en', lang: en, category: 'references',
    sessions: [[0, ['We decided to go with Postgres for the new billing service.']], [10, ['The Postgres migration went live yesterday without any issues.']]],
    checks: [[13, 'How did the migration go in the end?', { expect: ['without any issues'] }]] },
  { id: 'hotpot-zh', lang: zh, category: 'references',
    sessions: [[0, ['附近有什么好吃的火锅店？', ['assistant', '推荐你试试「小鹿家」火锅，番茄锅底很受欢迎。']]], [7, ['明天要降温了']]],
    checks: [[11, '上次你推荐的那家火锅店叫什么', { expect: ['小鹿家'] }]] },
  { id: 'launch-en', lang: en, category: 'references',
    sessions: [[0, ["Let's settle the launch: beta on March 3, general availability on April 15.", ['assistant', 'Noted: beta March 3, GA April 15.']]], [6, ['I got a new keyboard.']]],
    checks: [[9, 'Remind me of the plan we discussed', { expect: ['March 3'] }]] },

  // ── cross-language: the question in the other language than the memory ──
  { id: 'piano-x', lang: zh, category: 'cross-language',
    sessions: [[0, ['我女儿每周六上午有钢琴课']]],
    checks: [[5, "When is my daughter's piano lesson?", { expect: ['钢琴'] }]] },
  { id: 'dentist-x', lang: en, category: 'cross-language',
    sessions: [[0, ['My dentist appointment is on November 14.']]],
    checks: [[5, '我的牙医预约是哪天', { expect: ['November 14'] }]] },
  { id: 'mango-x', lang: zh, category: 'cross-language',
    sessions: [[0, ['我最喜欢的水果是芒果']]],
    checks: [[6, 'What fruit do I like best?', { expect: ['芒果'] }]] },
  { id: 'corolla-x', lang: en, category: 'cross-language',
    sessions: [[0, ['I drive a Toyota Corolla.']]],
    checks: [[6, '我开的是什么车', { expect: ['Corolla'] }]] },
  { id: 'dog-x', lang: zh, category: 'cross-language',
    sessions: [[0, ['我养了一只金毛，叫旺财']]],
    checks: [[6, 'What is my dog called?', { expect: ['旺财'] }]] },
  { id: 'sister-x', lang: en, category: 'cross-language',
    sessions: [[0, ['My sister lives in Vancouver.']]],
    checks: [[6, '我姐姐住在哪个城市', { expect: ['Vancouver'] }]] },
  { id: 'latte-x', lang: zh, category: 'cross-language',
    sessions: [[0, ['我每天早上都喝一杯拿铁']]],
    checks: [[6, 'What do I drink every morning?', { expect: ['拿铁'] }]] },
  { id: 'violin-x', lang: en, category: 'cross-language',
    sessions: [[0, ["I'm learning to play the violin."]]],
    checks: [[6, '我在学什么乐器', { expect: ['violin'] }]] },

  // ── paraphrase: the question shares no word with what was said ──
  { id: 'climb-p', lang: zh, category: 'paraphrase',
    sessions: [[0, ['我周末经常去爬山']]],
    checks: [[6, '我有什么户外爱好', { expect: ['爬山'] }]] },
  { id: 'chili-p', lang: en, category: 'paraphrase',
    sessions: [[0, ["I can't stand spicy food."]]],
    checks: [[6, 'Should I order the chili chicken?', { expect: ['spicy'] }]] },
  { id: 'deadline-p', lang: zh, category: 'paraphrase',
    sessions: [[0, ['下周三之前要交季度报告']]],
    checks: [[3, '我最近有什么截止日期', { expect: ['季度报告'] }]] },
  { id: 'bike-p', lang: en, category: 'paraphrase',
    sessions: [[0, ['I commute by bike every day.']]],
    checks: [[6, 'How do I get to the office?', { expect: ['bike'] }]] },
  { id: 'grade-p', lang: zh, category: 'paraphrase',
    sessions: [[0, ['我儿子在读小学三年级']]],
    checks: [[6, '孩子上几年级了', { expect: ['三年级'] }]] },
  { id: 'flight-p', lang: en, category: 'paraphrase',
    sessions: [[0, ['My flight lands at 6 am on Friday.']]],
    checks: [[2, 'When do I arrive?', { expect: ['6 am'] }]] },
  { id: 'sleep-p', lang: zh, category: 'paraphrase',
    sessions: [[0, ['我晚上一般十一点睡觉']]],
    checks: [[6, '我几点休息', { expect: ['十一点'] }]] },
  { id: 'kitten-p', lang: en, category: 'paraphrase',
    sessions: [[0, ['We adopted a kitten named Miso.']]],
    checks: [[6, "What's my cat called?", { expect: ['Miso'] }]] },
];

const at = (day, minute = 0) => new Date(BASE + day * DAY + minute * 60_000).toISOString().replace('.000Z', 'Z');
const lines = [];
for (const scenario of SCENARIOS) {
  const userId = `truth-${scenario.id}`;
  const days = scenario.sessions.map(([day]) => day);
  // A filler session halfway between each pair of the scenario's own sessions and before each check.
  const own = scenario.sessions.map(([day, turns], index) => ({ day, turns, sessionId: `s${index + 1}` }));
  const fillerDays = [];
  for (let i = 1; i < days.length; i += 1) fillerDays.push((days[i - 1] + days[i]) / 2);
  for (const [day] of scenario.checks) if (day - days[days.length - 1] >= 2) fillerDays.push((days[days.length - 1] + day) / 2);
  const fillers = fillerDays.map((day, index) => ({
    day,
    turns: FILLER[scenario.lang][index % FILLER[scenario.lang].length],
    sessionId: `f${index + 1}`,
  }));
  for (const session of [...own, ...fillers].sort((a, b) => a.day - b.day)) {
    session.turns.forEach((turn, index) => {
      const [role, text] = Array.isArray(turn) ? turn : ['user', turn];
      lines.push({
        type: 'turn',
        userId,
        sessionId: session.sessionId,
        turnId: `${session.sessionId}-t${index + 1}`,
        role,
        text,
        occurredAt: at(session.day, index * 2),
      });
    });
  }
  scenario.checks.forEach(([day, query, { expect = [], reject = [], once }], index) => {
    lines.push({
      type: 'check',
      userId,
      checkId: `${scenario.id}-${index + 1}`,
      category: scenario.category,
      query,
      askedAt: at(day, 30),
      sessionId: `q${index + 1}`,
      expect,
      reject,
      ...(once ? { once } : {}),
    });
  });
}
process.stdout.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
