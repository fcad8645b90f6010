#!/usr/bin/env node
/*
 * Writes test/eval/engram-cross-language.jsonl: questions asked in the other language than the turn
 * that answers them (English about Chinese, Chinese about English) and Chinese questions worded
 * with none of the answer's words (paraphrase), beside a few questions about things never said.
 * Written by hand like engram-bilingual.jsonl (same helpers, same line formats); see README.md.
 *
 *   node test/eval/build-cross-language.js            # rewrite the dataset
 *   node test/eval/build-cross-language.js --check    # only verify the shipped file is up to date
 */
'use strict';
const path = require('node:path');
const { u, a, session, q, main } = require('./build-dataset');

const USERS = [
  // ------------------------------------------------------------------ 小梅: runs an online ceramics shop (says everything in Chinese)
  {
    userId: 'xiaomei',
    sessions: [
      session('s1', '2026-09-02T02:00:00Z', [
        u('我在网上开了一家卖手工陶瓷的小店，主要卖茶杯和花瓶。', 'shop'),
        a('听起来很有意思！手工陶瓷很受欢迎，店开多久了？'),
        u('快两年了。店铺名字叫青瓷小筑，是我大学室友帮忙起的。', 'name'),
        a('名字很雅致。'),
        u('最近想把退货期限从七天延长到十五天。', 'returns'),
        a('延长退货期限能提升买家信任，不过要算好运费成本。'),
        u('嗯嗯'),
      ]),
      session('s2', '2026-09-20T11:30:00Z', [
        u('今天杭州下雨吗？'),
        a('我查不到实时天气，建议看看天气预报。'),
        u('对了，我对猫毛过敏，工作室里不能养猫，别再推荐我领养了。', 'allergy'),
        a('明白了，以后不再推荐养猫。'),
        u('客服这块我交给我妹妹了，她每天晚上八点到十点在线。', 'service'),
        a('好的，客服由你妹妹负责，晚上 8 点到 10 点在线。'),
      ]),
      session('s3', '2026-10-15T01:10:00Z', [
        u('下个月我要去景德镇进一批新货，大概待一周。', 'trip'),
        a('景德镇是瓷都，祝你选到好货！要我帮你列个采购清单吗？'),
        u('不用了，谢谢'),
        u('我们店的包装一律用可回收的纸箱，不用泡沫。', 'packaging'),
        a('很环保的做法，也可以在商品页写上这一点。'),
        u('我每天早上六点起床练瑜伽，练完再开始干活。', 'yoga'),
        a('早起运动是个好习惯。'),
      ]),
    ],
    questions: [
      q('cross-language', 'What kind of things does my online store sell?', ['shop']),
      q('cross-language', 'What is the name of my shop?', ['name']),
      q('cross-language', 'How long do buyers get to send an item back?', ['returns']),
      q('cross-language', 'What am I allergic to?', ['allergy']),
      q('cross-language', 'Who looks after customer service for me?', ['service']),
      q('cross-language', 'Where am I travelling next month to buy stock?', ['trip']),
      q('cross-language', 'What do we pack orders in?', ['packaging']),
      q('cross-language', 'What exercise do I do every morning?', ['yoga']),
      q('none', 'Which football team do I support?', []),
      q('none', 'How much is my monthly rent?', []),
      q('none', '我的车是什么牌子的？', []),
    ],
  },
  // ------------------------------------------------------------------ Oliver: chemistry teacher in Leeds (says everything in English)
  {
    userId: 'oliver',
    sessions: [
      session('s1', '2026-09-05T18:00:00Z', [
        u("Hi, I'm Oliver. I teach chemistry at a high school in Leeds.", 'job'),
        a('Nice to meet you, Oliver! What can I help with today?'),
        u('My daughter Emma has violin lessons every Saturday morning.', 'violin'),
        a('Lovely, Saturday mornings are a good time for practice.'),
        u("I'm training for the York half marathon in April.", 'marathon'),
        a('Good luck! Do you follow a plan?'),
        u('haha yeah'),
      ]),
      session('s2', '2026-09-28T19:20:00Z', [
        u("What's the pound to euro rate today?"),
        a("I can't fetch live exchange rates; your bank app will have it."),
        u("ok. By the way I've been vegetarian for ten years, so skip meat dishes when you suggest recipes.", 'veg'),
        a('Got it, vegetarian recipes only.'),
        u("We're renovating the kitchen, the builders start on the 3rd of November.", 'kitchen'),
        a('Good luck with the renovation! Do you need a checklist?'),
      ]),
      session('s3', '2026-10-20T20:00:00Z', [
        u("I'm allergic to penicillin, keep that in mind if I ask about medicine.", 'penicillin'),
        a('Noted: penicillin allergy.'),
        u('My sister lives in Vancouver and we video call every Sunday.', 'sister'),
        a("That's a nice routine."),
        u('My wife works as a nurse at St James hospital.', 'wife'),
        a('Nursing is demanding work, please pass on my respect.'),
        u('cheers'),
      ]),
    ],
    questions: [
      q('cross-language', '我在哪里教书？', ['job']),
      q('cross-language', '我女儿每周六上午做什么？', ['violin']),
      q('cross-language', '我四月份要跑什么比赛？', ['marathon']),
      q('cross-language', '给我推荐菜谱的时候要避开什么？', ['veg']),
      q('cross-language', '厨房装修什么时候开工？', ['kitchen']),
      q('cross-language', '我对哪种药过敏？', ['penicillin']),
      q('cross-language', '我姐姐住在哪个城市？', ['sister']),
      q('cross-language', '我妻子在哪家医院上班？', ['wife']),
      q('none', '我养了什么宠物？', []),
      q('none', '我的信用卡还款日是几号？', []),
      q('none', 'Which bank do I use?', []),
    ],
  },
  // ------------------------------------------------------------------ 老李: engineer and father (asks in other words than he said)
  {
    userId: 'laoli',
    sessions: [
      session('s1', '2026-09-10T12:00:00Z', [
        u('我的笔记本电脑是去年买的 ThinkPad X1，平时用来写代码。', 'laptop'),
        a('ThinkPad 的键盘写代码很舒服。'),
        u('我老婆下个月十二号过生日，我想给她一个惊喜。', 'birthday'),
        a('可以提前订一家她喜欢的餐厅。'),
        u('我在自学日语，打算明年去大阪旅游。', 'japanese'),
        a('学一门语言去旅行很有收获！'),
      ]),
      session('s2', '2026-10-05T13:00:00Z', [
        u('我的护照明年三月到期，得抽空去换。', 'passport'),
        a('建议提前两个月办理，以免影响出行。'),
        u('哈哈好的'),
        u('医生说我血压偏高，让我每天少吃盐。', 'salt'),
        a('少盐饮食对控制血压很有帮助。'),
        u('我儿子今年上初二，数学有点跟不上。', 'son'),
        a('可以考虑找个家教补一补。'),
      ]),
      session('s3', '2026-10-30T09:00:00Z', [
        u('周末我一般去河边骑自行车，大概二十公里。', 'bike'),
        a('骑行是很好的有氧运动。'),
        u('我们部门的年终聚餐定在十二月二十号。', 'party'),
        a('好的，记下了。'),
        u('家里的热水器又坏了，明天师傅上门修。', 'heater'),
        a('记得确认一下维修费用。'),
      ]),
    ],
    questions: [
      q('paraphrase', '我的手提电脑是什么牌子？', ['laptop']),
      q('paraphrase', '我太太的生日是哪天？', ['birthday']),
      q('paraphrase', '我正在学哪门外语？', ['japanese']),
      q('paraphrase', '我的出国证件什么时候过期？', ['passport']),
      q('paraphrase', '我在饮食上要控制什么？', ['salt']),
      q('paraphrase', '我家孩子读几年级？', ['son']),
      q('paraphrase', '我平时做什么运动？', ['bike']),
      q('paraphrase', '单位的年底聚会是哪天？', ['party']),
      q('paraphrase', '家里哪个电器需要维修？', ['heater']),
      q('none', '我喜欢喝什么茶？', []),
      q('none', 'What is my blood type?', []),
    ],
  },
  // ------------------------------------------------------------------ 阿珍: nurse in Guangzhou (Chinese; asks in both languages)
  {
    userId: 'azhen',
    sessions: [
      session('s1', '2026-09-12T03:00:00Z', [
        u('我在广州一家儿童医院当护士，经常上夜班。', 'job'),
        a('夜班很辛苦，注意休息。'),
        u('我不吃辣，一点都不行。', 'spicy'),
        a('好的，推荐菜的时候避开辣的。'),
        u('嗯嗯谢谢'),
      ]),
      session('s2', '2026-10-01T04:00:00Z', [
        u('我下周要搬家，新家在天河区，离地铁站很近。', 'move'),
        a('恭喜！搬家前记得提前约好搬家公司。'),
        u('我想买一台洗碗机，预算三千块以内。', 'dishwasher'),
        a('三千以内可以看看台式或者小型嵌入式的。'),
        u('今天几号来着'),
        a('今天是 10 月 1 日，国庆节快乐！'),
      ]),
      session('s3', '2026-10-25T05:00:00Z', [
        u('我的驾照考试定在十一月八号，科目二。', 'driving'),
        a('加油，科目二多练倒车入库。'),
        u('我女朋友在深圳做会计。', 'partner'),
        a('好的。'),
      ]),
    ],
    questions: [
      q('cross-language', 'What is my job?', ['job']),
      q('cross-language', 'Is there any food I cannot eat?', ['spicy']),
      q('cross-language', 'Which appliance am I planning to buy, and for how much?', ['dishwasher']),
      q('cross-language', "When is my driver's licence test?", ['driving']),
      q('cross-language', 'What does my girlfriend do for a living?', ['partner']),
      q('paraphrase', '我的新住处在哪个区？', ['move']),
      q('paraphrase', '我能吃辣椒吗？', ['spicy']),
      q('paraphrase', '我在哪里工作？', ['job']),
      q('none', 'What kind of car do I drive?', []),
      q('none', '我的微信号是多少？', []),
    ],
  },
];

main(USERS, path.join(__dirname, 'engram-cross-language.jsonl'));
