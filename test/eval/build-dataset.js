#!/usr/bin/env node
/*
 * Writes test/eval/engram-bilingual.jsonl from the hand-written conversations below.
 *
 * Everything a reader sees (every turn, every question, which turns answer it) is written by hand
 * here; the script only numbers the turns (`s2-t04`), spaces them a minute or two apart inside each
 * session, schedules the questions after the user's last session, and checks the result (labels
 * resolve, evidence precedes the question, counts per category and language).
 *
 *   node test/eval/build-dataset.js            # rewrite the dataset
 *   node test/eval/build-dataset.js --check    # only verify the shipped file is up to date
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const u = (text, label) => ({ role: 'user', text, label });
const a = (text, label) => ({ role: 'assistant', text, label });
const session = (id, start, turns) => ({ id, start, turns });
const q = (category, question, evidence) => ({ category, question, evidence });

/** One user's history and the questions later asked about it. */
const USERS = [
  // ------------------------------------------------------------------ 老周: backend lead, coding assistant
  {
    userId: 'laozhou',
    speaker: '老周',
    sessions: [
      session('s1', '2026-09-08T01:10:00Z', [
        u('你好，我叫周建国，同事都叫我老周，在一家做冷链物流 SaaS 的公司带后端组。', 'profile'),
        a('你好老周！冷链物流的业务链路挺长的，今天想聊点什么？'),
        u('我们的技术栈是 Spring Boot 2.7 加 MyBatis，核心业务库一直跑在 Oracle 11g 上，历史包袱很重。', 'oracle'),
        a('Oracle 11g 早就过了扩展支持期了，有升级或者迁移的计划吗？'),
        u('有，老板想今年内把订单库迁到 PostgreSQL，我在评估工作量。', 'pg-plan'),
        a('可以先从只读的报表库开始迁，风险小。我建议你先用 ora2pg 跑一份迁移评估报告，它会按存储过程、触发器估算改造人天。', 'rec-ora2pg'),
        u('好的，我先试试。'),
        u('对了，我写代码习惯用 IntelliJ IDEA，别再给我推荐 VS Code 的插件了。', 'ide'),
        a('明白，之后的建议都以 IDEA 为准。'),
      ]),
      session('s2', '2026-09-15T06:30:00Z', [
        u('老周又来了哈哈'),
        a('欢迎回来！ora2pg 的评估报告跑出来了吗？'),
        u('跑了，存储过程有 140 多个，比想象的多。迁移上线定在 12 月 15 号，在这之前要完成双写验证。', 'procs'),
        a('时间挺紧。建议先按调用频率给存储过程排个序，低频的改成应用层逻辑，高频的再逐个翻译。'),
        u('嗯嗯'),
        u('今天北京天气怎么样，下午要不要带伞？'),
        a('我查不到实时天气，建议看一下手机上的天气 App。'),
        u('行吧。另外我们组每周三下午两点开技术评审会，每次会前提醒我准备议题。', 'review'),
        a('好的，每周三 14:00 技术评审会，我会在会前提醒你准备议题。'),
      ]),
      session('s3', '2026-10-09T02:00:00Z', [
        u('之前说迁移上线是 12 月 15 号，刚开完会，推迟到明年 1 月 10 号了。', 'corr-date'),
        a('收到，迁移上线改为 1 月 10 日。双写验证要跟着顺延吗？'),
        u('对，顺延两周。'),
        u('帮我查一下今天美元兑人民币的汇率'),
        a('我拿不到实时汇率，可以在银行 App 里查看。'),
        u('好。我们现在数据库连接池用的是 Druid，想换成 HikariCP，你觉得有坑吗？', 'druid'),
        a('HikariCP 性能更好，但 Druid 自带的 SQL 监控就没了。推荐你配合 p6spy 记录慢 SQL，能把监控这块补上。', 'rec-p6spy'),
        u('有道理'),
      ]),
      session('s4', '2026-11-03T08:40:00Z', [
        u('告警短信以后发到我新手机 13812345678，阈值改成 CPU 连续 5 分钟超过 85% 才告警，之前太吵了。', 'pii'),
        a('好的，告警阈值记下了：CPU 连续 5 分钟超过 85%。'),
        u('哈哈哈'),
        u('还有，我写 SQL 习惯关键字全小写，你生成代码的时候注意一下。', 'sql-style'),
        a('好的，之后生成的 SQL 关键字统一用小写。'),
        u('双写验证我们决定用 Debezium 读 Oracle 的 LogMiner 来做数据比对。', 'debezium'),
        a('Debezium 的 Oracle connector 对 11g 的支持有些限制，建议先在测试环境把 LogMiner 的延迟压一压。'),
        u('收到，辛苦了'),
      ]),
      session('s5', '2026-11-19T02:30:00Z', [
        u('老周报到。新来的实习生小吴下周一入职，我想让他先熟悉订单模块。'),
        a('可以先让他读订单状态机那部分代码，再从修一两个小 bug 开始上手。'),
        u('对。另外我们决定下个迭代把 Redis 从 5.0 升到 7.2。', 'redis'),
        a('升级前注意 7.x 的 ACL 和部分命令的行为变化，建议先在预发环境跑一周回归。'),
        u('我比较喜欢先写单元测试再写实现，你给我示例的时候也按这个顺序来。', 'tdd'),
        a('没问题，之后的示例都先给测试，再给实现。'),
      ]),
    ],
    questions: [
      q('profile', '我在什么公司带哪个组？', ['profile']),
      q('alias', '我们核心库用的甲骨文数据库是哪个版本？', ['oracle']),
      q('correction', '订单库迁移到 PostgreSQL 的上线日期是哪天？', ['corr-date']),
      q('temporal', '技术评审会是每周几几点开？', ['review']),
      q('assistant-recommendation', '你之前推荐我跑迁移评估报告的那个工具叫什么？', ['rec-ora2pg']),
      q('assistant-recommendation', '换连接池以后，你建议我用什么把慢 SQL 监控补上？', ['rec-p6spy']),
      q('preference', '我平时用哪个 IDE 写代码？', ['ide']),
      q('pii', '我把告警阈值改成多少了？', ['pii']),
      q('ephemeral-noise', '我们现在用的数据库连接池是哪个？', ['druid']),
      q('chitchat-noise', '双写验证最后决定用什么方案做数据比对？', ['debezium']),
      q('multi-session', '订单库要迁去哪个数据库，要改的存储过程有多少个？', ['pg-plan', 'procs']),
      q('preference', '给我写示例代码的时候，我希望按什么顺序来？', ['tdd']),
      q('temporal', 'Redis 打算什么时候升级，升到哪个版本？', ['redis']),
      q('none', '我家孩子在哪个学校上学？', []),
    ],
  },

  // ------------------------------------------------------------------ 林晓: shopping and gifts
  {
    userId: 'linxiao',
    sessions: [
      session('s1', '2026-09-05T12:20:00Z', [
        u('想给我老婆挑个生日礼物，她 10 月 18 号生日，预算两千左右。', 'wife-bday'),
        a('好的！她平时喜欢什么？香水、包、首饰还是数码产品？'),
        u('她喜欢香水，但是不喜欢太甜的味道，偏爱木质调。', 'wife-scent'),
        a('木质调的话，我推荐 Le Labo 的檀香 33，50ml 大概 1900 元，正好在预算内。', 'rec-perfume'),
        u('好贵哈哈，我再考虑一下'),
        u('附近有没有丝芙兰？'),
        a('我看不到你的位置，可以在地图 App 里搜一下“丝芙兰”。'),
        u('好的'),
      ]),
      session('s2', '2026-09-20T13:05:00Z', [
        u('我自己想买双跑鞋，我穿 43 码，脚背比较高。', 'shoe'),
        a('脚背高的话要选鞋面宽松的款，我推荐亚瑟士 Gel-Nimbus 26 或者 New Balance 1080 v14，楦头都比较宽。', 'rec-shoes'),
        u('1080 我在店里试穿过，挺舒服的。', 'tried-1080'),
        u('对了我对芒果过敏，以后推荐零食什么的注意一下。', 'allergy'),
        a('记住了，你对芒果过敏，推荐吃的时候会避开。'),
        u('谢谢'),
        u('帮我查一下今天金价多少'),
        a('实时金价我查不到，可以看一下银行或者黄金类的 App。'),
      ]),
      session('s3', '2026-10-12T11:40:00Z', [
        u('礼物最后买了 Le Labo 檀香 33，她超喜欢！', 'bought'),
        a('太好了，选对礼物最有成就感了！'),
        u('哈哈是的'),
        u('下个月要搬家，新家在杭州滨江区，以后的快递地址都要改。', 'move'),
        a('恭喜乔迁！需要我帮你列一份搬家清单吗？'),
        u('要的。搬家定在 11 月 8 号周日。', 'move-date'),
        a('好的，11 月 8 日周日搬家。我帮你倒排一下：提前一周打包书和换季衣服，提前三天跟搬家公司确认车辆。'),
      ]),
      session('s4', '2026-11-10T12:00:00Z', [
        u('搬完了，累死。收货地址更新一下：杭州市滨江区江南大道 588 号 3 幢 1201，收件人林晓，电话 13912345678。', 'pii'),
        a('已更新收货地址：滨江区江南大道 588 号 3 幢 1201。'),
        u('之前说鞋码 43，其实我穿 43.5 更合适，上次买的 43 有点挤脚。', 'corr-shoe'),
        a('明白，以后按 43.5 码给你推荐。'),
        u('还想买个空气净化器，预算三千以内，家里养了两只猫。', 'purifier'),
        a('家里有猫的话要选带宠物毛发预滤网的，推荐小米空气净化器 4 Pro 或者 352 X86C，都在三千以内。', 'rec-purifier'),
        u('嗯嗯我看看'),
      ]),
      session('s5', '2026-11-21T12:30:00Z', [
        u('空气净化器最后买了小米 4 Pro，猫毛确实少多了。', 'bought-purifier'),
        a('太好了！滤网一般半年左右换一次，留意 App 里的提示。'),
        u('我平时买东西喜欢在京东，物流快，拼多多上的东西我不太信得过。', 'jd'),
        a('明白，以后优先给你推荐京东自营的商品。'),
        u('老婆下个月要去日本出差，想给她买个轻一点的 20 寸登机箱。'),
        a('推荐看看新秀丽的 Cosmolite 20 寸，不到 2 公斤，很轻。'),
        u('好嘞'),
      ]),
    ],
    questions: [
      q('temporal', '我老婆生日是几月几号？', ['wife-bday']),
      q('preference', '我老婆喜欢什么类型的香味？', ['wife-scent']),
      q('assistant-recommendation', '买跑鞋的时候你给我推荐了哪两个型号？', ['rec-shoes']),
      q('correction', '我穿多大码的鞋？', ['corr-shoe']),
      q('profile', '我现在住在哪个城市哪个区？', ['move', 'pii']),
      q('pii', '我新的收货地址具体是几幢几号？', ['pii']),
      q('temporal', '我是哪天搬的家？', ['move-date']),
      q('preference', '我对什么水果过敏？', ['allergy']),
      q('alias', '我试穿过的那双 NB 跑鞋是什么型号？', ['rec-shoes', 'tried-1080']),
      q('ephemeral-noise', '我说过自己的脚有什么特点？', ['shoe']),
      q('chitchat-noise', '老婆的生日礼物最后买的是什么？', ['bought']),
      q('assistant-recommendation', '家里有猫，你推荐我买哪款空气净化器？', ['rec-purifier']),
      q('preference', '我一般喜欢在哪个平台买东西？', ['jd']),
      q('multi-session', '家里的空气净化器，我的预算是多少，最后买的是哪款？', ['purifier', 'bought-purifier']),
      q('none', '我开的车是什么牌子的？', []),
    ],
  },

  // ------------------------------------------------------------------ 陈洁: broadband customer service
  {
    userId: 'chenjie',
    speaker: '陈洁',
    sessions: [
      session('s1', '2026-09-02T03:00:00Z', [
        u('你好，我叫陈洁，想办理宽带新装，地址是成都市高新区天府三街 199 号。', 'name'),
        a('您好陈女士！该地址可以安装千兆光纤。请问您想办哪个套餐？'),
        u('家里两个人，主要看视频和打游戏，有没有性价比高一点的？', 'usage'),
        a('推荐您办理 199 元/月的千兆融合套餐，含两张副卡和 100G 流量，打游戏延迟也低。', 'rec-plan'),
        u('有点贵，有便宜点的吗'),
        a('还有 129 元/月的 500M 套餐，不含副卡。'),
        u('那就选 129 的 500M 吧。', 'plan'),
        a('好的，已为您选择 500M 宽带套餐，月费 129 元。'),
      ]),
      session('s2', '2026-09-04T02:10:00Z', [
        u('安装师傅约的什么时候？'),
        a('已为您预约 9 月 6 日周六上午 9 点到 12 点上门安装。'),
        u('周六上午我不在家，能改到下午吗？'),
        a('已改为 9 月 6 日周六下午 2 点到 5 点上门。', 'install'),
        u('好的'),
        u('上门前让师傅打我手机 18612345678，别打座机，座机白天没人接。', 'pii'),
        a('好的，已备注：上门前先打手机联系，不拨打座机。'),
      ]),
      session('s3', '2026-10-08T09:30:00Z', [
        u('宽带这几天晚上老掉线，八点以后特别明显。', 'drops'),
        a('抱歉给您带来不便。请问光猫上的 LOS 灯有没有闪红？'),
        u('没有红灯，就是 WiFi 断。'),
        a('可能是无线信道拥堵。建议您把路由器 5G 频段的信道改成 149，并把路由器放到客厅中间。', 'rec-channel'),
        u('今天成都下雨吗'),
        a('抱歉，我这边查不了天气，您可以看一下天气预报。'),
        u('嗯'),
        u('信道改了以后好多了。另外我搬家了，宽带要移机，地址不是天府三街了，新地址是武侯区玉林南路 12 号。', 'corr-addr'),
        a('好的，已为您登记移机，新地址：武侯区玉林南路 12 号。'),
      ]),
      session('s4', '2026-11-06T07:00:00Z', [
        u('移机什么时候能弄好？'),
        a('移机工单已经派发，预计 11 月 12 日前完成。', 'move-eta'),
        u('好的谢谢'),
        u('还有，家里多了一个人，我想把套餐升级成 199 的千兆融合。', 'upgrade'),
        a('已为您申请升级为 199 元千兆融合套餐，下个账期生效。'),
        u('发票抬头开公司的：成都小鹿文化传播有限公司。', 'invoice'),
        a('好的，发票抬头已记录。'),
        u('哈哈你们效率挺高'),
      ]),
      session('s5', '2026-11-19T06:00:00Z', [
        u('移机已经装好了，网速很稳。'),
        a('太好了，后面有问题随时联系我们。'),
        u('我想给我爸也办一张手机卡，他年纪大了，流量用得少，主要打电话。'),
        a('推荐给叔叔办 19 元的长辈卡，每月 300 分钟通话加 5G 流量，足够用了。'),
        u('行，周末带他去营业厅办。'),
        a('好的，记得带上叔叔的身份证原件。'),
      ]),
    ],
    questions: [
      q('profile', '我叫什么名字？', ['name']),
      q('correction', '我的宽带现在装在哪个地址？', ['corr-addr']),
      q('correction', '安装师傅最后约的是几点上门？', ['install']),
      q('assistant-recommendation', '上次你建议我把 WiFi 信道改成多少？', ['rec-channel']),
      q('temporal', '移机预计哪天之前能完成？', ['move-eta']),
      q('pii', '师傅上门前我希望怎么联系我？', ['pii']),
      q('multi-session', '我的宽带套餐一开始选的多少钱，后来升级成了多少钱的？', ['plan', 'upgrade']),
      q('ephemeral-noise', '宽带一般晚上几点以后容易掉线？', ['drops']),
      q('chitchat-noise', '发票抬头开的是哪家公司？', ['invoice']),
      q('preference', '我家上网主要用来干什么？', ['usage']),
      q('assistant-recommendation', '你最早给我推荐的是哪个套餐？', ['rec-plan']),
      q('none', '我的信用卡额度是多少？', []),
    ],
  },

  // ------------------------------------------------------------------ 王芳: travel planning with her parents
  {
    userId: 'wangfang',
    sessions: [
      session('s1', '2026-09-10T11:00:00Z', [
        u('国庆想带爸妈去成都玩五天，10 月 2 号出发。', 'trip'),
        a('成都很适合带老人玩！预算大概多少？'),
        u('三个人总共一万五以内吧。', 'budget'),
        a('没问题。住宿的话，春熙路附近的博舍环境最好，但一晚两千多会超预算；更实惠的是太古里旁边的全季酒店，一晚 500 左右。'),
        u('住全季吧，爸妈不讲究这些。', 'hotel'),
        u('我不吃辣，我妈也不太能吃，吃饭得找清淡点的。', 'spicy'),
        a('记下了。不辣的川菜可以去松云泽，主打清淡的河鲜和甜口菜，很适合长辈。', 'rec-restaurant'),
      ]),
      session('s2', '2026-09-18T12:30:00Z', [
        u('机票订好了，10 月 2 号早上 7:40 的国航 CA4193，从首都机场出发。', 'flight'),
        a('好的，7:40 的航班建议 5:40 之前到机场。'),
        u('好早啊哈哈'),
        u('查一下成都十月初的气温'),
        a('我查不到实时预报，不过十月初成都一般 18 到 25 度，带件薄外套就行。'),
        u('我爸膝盖不好，不能爬太多台阶，青城山还去吗？', 'dad-knee'),
        a('青城山台阶比较多，建议换成都江堰，景区里有观光车，对膝盖友好。', 'rec-dujiangyan'),
        u('好，那就去都江堰。'),
      ]),
      session('s3', '2026-10-07T13:00:00Z', [
        u('回来了！玩得很开心。其实我后来发现我能吃一点微辣，兔头太香了。', 'corr-spicy'),
        a('哈哈，成都果然会改变人的口味！'),
        u('下次想去云南，大理和丽江都想去，时间大概明年三月。', 'next-trip'),
        a('三月的大理很舒服，樱花也正好开。'),
        u('嗯嗯'),
        u('我在一家外企做财务，年假一共十五天，三月能请一周。', 'job'),
        a('一周的话可以大理三天、丽江三天，中间留一天机动。'),
      ]),
      session('s4', '2026-11-15T10:00:00Z', [
        u('云南的行程我决定只去大理了，丽江太商业化。', 'corr-yunnan'),
        a('好的，那在大理可以住洱海边的双廊或者喜洲古镇。我更推荐喜洲，人少，早餐也好吃。', 'rec-xizhou'),
        u('帮我翻译一下“洱海”用英文怎么说'),
        a('洱海一般译作 Erhai Lake。'),
        u('谢谢。我的华住会员是铂金卡，订酒店用这个邮箱登记：wangfang@example.com。', 'pii'),
        a('好的，之后订华住旗下的酒店记得用铂金会员价。'),
      ]),
      session('s5', '2026-11-22T11:00:00Z', [
        u('我妈说大理她也想去，所以三月是我和爸妈三个人一起。'),
        a('那节奏要放慢一点，喜洲的民宿尽量选一楼或者有电梯的房间。'),
        u('我妈晕车，山路能少走就少走。', 'mom-carsick'),
        a('那上苍山就坐索道，别走盘山公路。我推荐洗马潭索道，能直接到山顶。'),
        u('好，就这么定了。'),
      ]),
    ],
    questions: [
      q('temporal', '国庆去成都那次是几号出发的？', ['trip', 'flight']),
      q('temporal', '去成都的航班几点起飞？', ['flight']),
      q('correction', '我现在能吃辣吗？', ['corr-spicy']),
      q('assistant-recommendation', '你推荐的那家清淡的川菜馆叫什么？', ['rec-restaurant']),
      q('assistant-recommendation', '因为我爸膝盖不好，你建议把青城山换成哪里？', ['rec-dujiangyan']),
      q('profile', '我是做什么工作的？', ['job']),
      q('correction', '明年三月去云南，最后打算去哪些地方？', ['corr-yunnan']),
      q('pii', '我的华住会员是什么等级？', ['pii']),
      q('ephemeral-noise', '去大理你推荐我住哪里？', ['rec-xizhou']),
      q('chitchat-noise', '我爸身体有什么需要注意的？', ['dad-knee']),
      q('alias', '我们在蓉城住的是哪家酒店？', ['hotel']),
      q('multi-session', '成都之后，我下一次旅行计划去哪里、什么时候去？', ['next-trip', 'corr-yunnan']),
      q('preference', '安排行程时，我妈坐车有什么要注意的？', ['mom-carsick']),
      q('none', '我养的狗叫什么名字？', []),
    ],
  },

  // ------------------------------------------------------------------ 赵磊: fitness and diet
  {
    userId: 'zhaolei',
    sessions: [
      session('s1', '2026-09-03T23:30:00Z', [
        u('我想减脂，现在 82 公斤，身高 178，目标是年底前减到 75。', 'goal'),
        a('目标挺合理，每周减 0.5 公斤左右比较健康。你平时运动吗？'),
        u('每周二、四、六早上跑步，每次 5 公里左右。', 'run'),
        a('很好的习惯。可以再加两次力量训练，保护膝盖，也能提高代谢。'),
        u('我乳糖不耐受，喝牛奶会拉肚子，蛋白粉有推荐吗？', 'lactose'),
        a('乳糖不耐受可以选分离乳清或者植物蛋白。我推荐 Myprotein 的 Impact 分离乳清，乳糖含量很低。', 'rec-protein'),
        u('好的'),
      ]),
      session('s2', '2026-09-17T00:00:00Z', [
        u('早！'),
        a('早上好！今天跑步了吗？'),
        u('跑了，配速 6 分 10 秒。今天天气适合户外跑吗？'),
        a('我看不到实时天气，出门前看一眼空气质量指数吧。'),
        u('我中午一般在公司食堂吃，晚饭自己做，不吃主食。', 'dinner'),
        a('晚饭完全不吃主食可能影响训练恢复，建议加一小份粗粮，比如半根玉米或者一小碗糙米饭。', 'rec-grain'),
        u('行，试试'),
        u('哈哈'),
      ]),
      session('s3', '2026-10-15T23:40:00Z', [
        u('跑步时间改了，天冷了，改成周一三五晚上去健身房跑跑步机。', 'corr-run'),
        a('好的，周一、三、五晚上跑步机。可以把坡度调到 1%，更接近户外。'),
        u('我现在 79.5 公斤了！', 'weight'),
        a('太棒了，一个半月减了 2.5 公斤！'),
        u('嘿嘿'),
        u('我在一家游戏公司做 UI 设计，经常加班到十点，健身只能晚上去。', 'job'),
        a('加班多的话，晚上练完注意补蛋白质，保证睡眠。'),
      ]),
      session('s4', '2026-11-12T12:30:00Z', [
        u('膝盖有点疼，医生说是髌腱炎，要停跑两周。', 'knee'),
        a('停跑期间可以改成游泳，对膝盖压力小。推荐每周游三次，每次 40 分钟。', 'rec-swim'),
        u('我不会游泳😂'),
        a('那就用椭圆机或者划船机代替，强度控制在能说话的程度。', 'rec-elliptical'),
        u('对了，我的体脂秤绑定的手机是 15012345678，体重数据都记在“好轻”App 里。', 'pii'),
        a('好的，之后可以按好轻 App 里的数据帮你看趋势。'),
      ]),
      session('s5', '2026-11-22T13:00:00Z', [
        u('膝盖好多了，医生说下周可以恢复慢跑，但每次不超过 3 公里。'),
        a('好消息！恢复期配速放慢到 7 分以上，跑前一定充分热身。'),
        u('我不喜欢吃鸡胸肉，太柴了，有没有别的高蛋白推荐？', 'chicken'),
        a('可以试试巴沙鱼、虾仁、北豆腐或者牛腱子，口感都比鸡胸肉好。'),
        u('虾仁可以，我喜欢吃虾。'),
        a('那晚饭可以多安排虾仁炒蛋或者白灼虾。'),
      ]),
    ],
    questions: [
      q('profile', '我身高多少？', ['goal']),
      q('temporal', '我的减重目标是什么时候前减到多少？', ['goal']),
      q('correction', '我现在每周哪几天跑步？', ['corr-run']),
      q('profile', '我为什么不能喝牛奶？', ['lactose']),
      q('preference', '我晚饭一般怎么吃？', ['dinner']),
      q('assistant-recommendation', '你给我推荐的蛋白粉是哪款？', ['rec-protein']),
      q('assistant-recommendation', '停跑期间你建议我做什么运动来代替？', ['rec-swim', 'rec-elliptical']),
      q('profile', '我在什么公司做什么岗位？', ['job']),
      q('pii', '我的体重数据记在哪个 App 里？', ['pii']),
      q('ephemeral-noise', '晚饭你建议我加点什么？', ['rec-grain']),
      q('chitchat-noise', '我最近一次说的体重是多少？', ['weight']),
      q('multi-session', '我的体重从多少降到了多少？', ['goal', 'weight']),
      q('preference', '我不爱吃哪种肉？', ['chicken']),
      q('none', '我的血型是什么？', []),
    ],
  },

  // ------------------------------------------------------------------ 孙悦: applying for a master's in the UK
  {
    userId: 'sunyue',
    sessions: [
      session('s1', '2026-09-01T12:00:00Z', [
        u('你好，我叫孙悦，大四，学的是统计学，准备申请英国的数据科学硕士。', 'profile'),
        a('你好孙悦！英国的数据科学项目很多，目标学校定了吗？'),
        u('第一志愿爱丁堡，然后是 UCL 和华威。', 'schools'),
        a('这三所都很热门，雅思一般要求总分 7、单项不低于 6.5。'),
        u('我雅思考了 6.5，写作只有 5.5，得再考一次。', 'ielts'),
        a('写作提分建议每天精读一篇范文，推荐用《剑桥雅思官方指南》的写作部分来练。', 'rec-book'),
        u('好，我去买'),
      ]),
      session('s2', '2026-09-20T12:30:00Z', [
        u('雅思二战报名了，考试在 10 月 24 号。', 'exam'),
        a('还有五周左右，可以每周写三篇大作文，找人帮忙批改。'),
        u('嗯嗯'),
        u('爱丁堡第一轮截止是哪天？帮我查一下官网'),
        a('我访问不了网页。爱丁堡很多项目是分轮次录取的，越早提交越好。'),
        u('我的 GPA 是 3.6/4.0，专业排名前 15%。', 'gpa'),
        a('这个背景申请爱丁堡和 UCL 都有竞争力。'),
      ]),
      session('s3', '2026-10-28T13:00:00Z', [
        u('雅思出分了！总分 7，写作 6.5！', 'ielts-new'),
        a('恭喜！三所学校的语言要求都达到了。'),
        u('哈哈哈开心'),
        u('推荐信找了两位老师：我的毕业论文导师李教授，还有教概率论的王老师。', 'referees'),
        a('很好。建议提前给两位老师准备一份简历和项目清单，方便他们写。'),
        u('另外，我不想申伦敦的学校了，生活费太高，UCL 不申了。', 'corr-schools'),
        a('好的，那目标就是爱丁堡和华威。我建议再加一所格拉斯哥大学做保底。', 'rec-glasgow'),
      ]),
      session('s4', '2026-11-18T11:00:00Z', [
        u('爱丁堡的网申交了！华威的文书还在改，打算 12 月 10 号前提交。', 'warwick'),
        a('加油！文书里多突出你的统计背景和实习经历。'),
        u('我暑假在德勤实习了三个月，做审计数据分析，带我的经理电话是 17712345678，需要的话可以做背调。', 'pii'),
        a('德勤的实习很加分，文书里可以写你用 Python 做审计抽样的那部分。'),
        u('谢谢！'),
      ]),
      session('s5', '2026-11-21T12:00:00Z', [
        u('华威的文书改完了！想问一下英国读研一年生活费大概多少？'),
        a('爱丁堡一年生活费大概 1.2 到 1.5 万英镑，华威所在的考文垂会便宜一些。'),
        u('我爸妈说总预算最多 40 万人民币，包括学费。', 'budget'),
        a('40 万的话，爱丁堡学费加生活费会比较紧，华威稍好一些。建议同时申请一下学校的奖学金。'),
        u('好的。我更喜欢小城市，安静一点适合学习。', 'small-city'),
        a('那华威所在的考文垂挺合适的。'),
      ]),
    ],
    questions: [
      q('profile', '我本科学的是什么专业？', ['profile']),
      q('correction', '我雅思最新的成绩是多少？', ['ielts-new']),
      q('correction', '我现在打算申请哪些学校？', ['corr-schools']),
      q('temporal', '雅思第二次考试是哪天？', ['exam']),
      q('temporal', '华威的文书打算什么时候前交？', ['warwick']),
      q('assistant-recommendation', '你推荐我用哪本书练雅思写作？', ['rec-book']),
      q('assistant-recommendation', '你建议我加哪所学校做保底？', ['rec-glasgow']),
      q('pii', '我暑假在哪里实习的？', ['pii']),
      q('ephemeral-noise', '我的 GPA 和专业排名是多少？', ['gpa']),
      q('chitchat-noise', '我的推荐信找了哪两位老师？', ['referees']),
      q('alias', '我申请的 Data Science 硕士是在哪个国家？', ['profile']),
      q('multi-session', '我前后两次雅思分别考了多少分？', ['ielts', 'ielts-new']),
      q('preference', '我更喜欢在什么样的城市读书？', ['small-city']),
      q('multi-session', '我的第一志愿是哪所学校，留学总预算是多少？', ['schools', 'budget']),
      q('none', '我打算什么时候去考驾照？', []),
    ],
  },

  // ------------------------------------------------------------------ Maya: backend engineer, coding assistant
  {
    userId: 'maya',
    sessions: [
      session('s1', '2026-09-09T15:00:00Z', [
        u("Hey, I'm Maya, a backend engineer at a fintech startup called Ledgerly. We're a team of six.", 'profile'),
        a('Nice to meet you, Maya! What are you working on these days?'),
        u('Our API is Python 3.11 with FastAPI, and everything runs on Kubernetes on GCP.', 'stack'),
        a('Solid stack. Are you using an ORM?'),
        u('SQLAlchemy 2.0, with Postgres 15 as the main database.', 'db'),
        a("For migrations I'd recommend Alembic with autogenerate, but always review the generated scripts before applying them."),
        u('yeah we already use alembic lol'),
        u(
          'I prefer type hints everywhere, and I really dislike bare `except:` clauses, so keep that in mind when you write snippets.',
          'style',
        ),
        a('Got it: fully typed code and specific exception handling only.'),
      ]),
      session('s2', '2026-09-22T17:20:00Z', [
        u('hey again'),
        a("Welcome back! How's the sprint going?"),
        u('Rough. We have to ship the payouts reconciliation service by October 30.', 'deadline'),
        a("That's about five weeks. Want to sketch the architecture together?"),
        u('Sure. It pulls bank statements from SFTP, matches them against our ledger, and posts mismatches to Slack.', 'flow'),
        a(
          'I suggest splitting it into an ingestion worker and a matcher, and making the matcher idempotent so reruns are safe. For the SFTP part, check out paramiko.',
          'rec-paramiko',
        ),
        u("what's the weather in Austin today?"),
        a("I can't check live weather, sorry. A weather app will have it."),
        u("np. Also our standup is every day at 9:30 Central, so I'm usually offline before 10.", 'standup'),
        a('Noted: daily standup at 9:30 Central.'),
      ]),
      session('s3', '2026-10-20T16:00:00Z', [
        u('Update: the reconciliation deadline moved to November 13, finance needs more time to test.', 'corr-deadline'),
        a('Two more weeks, then. Will you spend them on test coverage?'),
        u("Yes. Also we switched our task queue from Celery to Dramatiq last week, Celery's retries kept biting us.", 'queue'),
        a("Dramatiq's defaults are saner. Remember to set max_retries explicitly on the matcher actors."),
        u('cool'),
        u('thanks!'),
        u('And I use Neovim with the LazyVim config, so terminal-friendly suggestions please.', 'editor'),
        a('Will do, no VS Code-specific tips then.'),
      ]),
      session('s4', '2026-11-16T18:00:00Z', [
        u('The on-call pager goes to +1 415 555 0132 now, and it fires when p99 latency on /payouts goes over 800 ms.', 'pii'),
        a('Got it: the alert threshold is p99 above 800 ms on /payouts.'),
        u("Also, heads up: we're moving from GCP to AWS next quarter, EKS instead of GKE.", 'cloud'),
        a(
          "Big move. I'd recommend Terraform with separate state per environment, so you can bring EKS up next to GKE and cut over service by service.",
          'rec-terraform',
        ),
        u('makes sense'),
      ]),
      session('s5', '2026-11-21T17:00:00Z', [
        u('Quick one: we hired a second backend engineer, Omar, he starts December 1.', 'omar'),
        a('Congrats on the hire! Want an onboarding checklist?'),
        u('yes, but note I prefer pairing over long onboarding docs, docs go stale fast.', 'pairing'),
        a('Then I suggest a pairing rotation for his first two weeks, with one small production ticket a day.'),
        u('love it'),
      ]),
    ],
    questions: [
      q('profile', 'Where do I work and what do I do there?', ['profile']),
      q('preference', 'What coding style rules did I ask you to follow in snippets?', ['style']),
      q('alias', 'Which version of PostgreSQL do we run?', ['db']),
      q('correction', 'When is the payouts reconciliation service due?', ['corr-deadline']),
      q('correction', 'Which task queue do we use now?', ['queue']),
      q('temporal', 'What time is my daily standup?', ['standup']),
      q('assistant-recommendation', 'Which library did you suggest for the SFTP part?', ['rec-paramiko']),
      q('assistant-recommendation', 'What did you recommend for the cloud migration?', ['rec-terraform']),
      q('pii', 'What latency threshold triggers our on-call alerts?', ['pii']),
      q('ephemeral-noise', 'How does the reconciliation service work, step by step?', ['flow']),
      q('chitchat-noise', 'What editor setup do I use?', ['editor']),
      q('multi-session', 'Where does our stack run today, and where are we moving it?', ['stack', 'cloud']),
      q('preference', 'How do I like to onboard new engineers?', ['pairing']),
      q('temporal', 'When does Omar start?', ['omar']),
      q('none', "What's my cat's name?", []),
    ],
  },

  // ------------------------------------------------------------------ David: wedding photographer, shopping
  {
    userId: 'david',
    sessions: [
      session('s1', '2026-09-06T19:00:00Z', [
        u('Looking for a new laptop for photo editing. Budget is around $1,800.', 'budget'),
        a("For photo editing you'll want a color-accurate screen. Any OS preference?"),
        u("I've always used Macs, I don't want to switch to Windows.", 'mac'),
        a("Then I'd recommend the 14-inch MacBook Pro with the M4 chip and 24GB of RAM. It's right at your budget.", 'rec-mbp'),
        u("hmm, isn't 16GB enough?"),
        a('For Lightroom catalogs with big RAW files, 24GB gives you headroom. 16GB works but gets tight.'),
        u("ok I'll think about it"),
      ]),
      session('s2', '2026-09-14T20:30:00Z', [
        u('I bought the MacBook Pro from B&H, got it for $1,749.', 'bought'),
        a('Nice deal! Need help setting it up?'),
        u('nah. Now I need running shoes. I mostly run trails, size 10.5 US, and I have wide feet.', 'shoes'),
        a('For wide feet on trails, check out the Altra Lone Peak 8: wide toe box, zero drop.'),
        u('I tried zero drop once and hated it, my calves were wrecked for a week.', 'zero-drop'),
        a('Fair enough. Then the Hoka Speedgoat 6 in wide would suit you better, it has a 4mm drop.', 'rec-hoka'),
        u('sounds good'),
      ]),
      session('s3', '2026-10-11T18:00:00Z', [
        u('is the Apple store near me open now?'),
        a("I can't see your location or live hours, but Apple's website lists store hours."),
        u("ok. Btw I'm a wedding photographer based in Portland, so I travel a lot on weekends.", 'profile'),
        a('That explains the Lightroom needs! Do you need a camera bag too?'),
        u('Yes, something that fits as a carry-on. I shoot with a Sony A7 IV.', 'camera'),
        a('The Peak Design Travel Backpack 30L fits carry-on limits and takes a camera cube.', 'rec-bag'),
        u('nice'),
        u('thanks'),
      ]),
      session('s4', '2026-11-08T21:00:00Z', [
        u("Quick correction on the shoes: I'm actually a size 11 now, the 10.5 Speedgoats were too snug.", 'corr-size'),
        a('Got it, size 11 wide from now on.'),
        u('For Black Friday I want a new monitor, $600 max, and it has to be color accurate.', 'monitor'),
        a("The BenQ SW242Q is around $600 and covers most of Adobe RGB. It's a solid pick for photo work.", 'rec-monitor'),
        u("Ship it to my studio, 2210 NW Flanders St, and text me at 503-555-0187 when it's on the way.", 'pii'),
        a('Noted: deliveries go to your studio on NW Flanders St.'),
        u('cheers'),
      ]),
      session('s5', '2026-11-23T20:00:00Z', [
        u('The BenQ arrived, colors look amazing.'),
        a('Great! Have you calibrated it yet?'),
        u("Not yet. I'm flying to Austin for a wedding shoot on December 12, back on the 15th.", 'austin'),
        a("Have a great shoot! For calibration I'd recommend the Calibrite Display Plus HL, it works with BenQ's Palette Master."),
        u("I prefer buying from B&H, they've always treated me well.", 'bh'),
        a('B&H carries the Calibrite, so you are set.'),
      ]),
    ],
    questions: [
      q('preference', 'What operating system do I prefer?', ['mac']),
      q('preference', 'What kind of running shoes do I dislike?', ['zero-drop']),
      q('correction', "What's my shoe size?", ['corr-size']),
      q('assistant-recommendation', 'Which trail shoe did you recommend after I ruled out zero drop?', ['rec-hoka']),
      q('assistant-recommendation', 'What monitor did you recommend for photo work?', ['rec-monitor']),
      q('profile', 'What do I do for a living and where am I based?', ['profile']),
      q('alias', 'Which Apple notebook did I end up buying, and where?', ['bought']),
      q('pii', 'Where should my monitor be delivered?', ['pii']),
      q('ephemeral-noise', 'What camera do I shoot with?', ['camera']),
      q('chitchat-noise', 'Which camera bag did you suggest?', ['rec-bag']),
      q('temporal', 'What am I planning to buy on Black Friday, and for how much?', ['monitor']),
      q('multi-session', 'What was my laptop budget, and what did I actually pay?', ['budget', 'bought']),
      q('assistant-recommendation', 'How much RAM did you tell me to get in the laptop?', ['rec-mbp']),
      q('temporal', 'When is my Austin wedding shoot?', ['austin']),
      q('multi-session', 'Which store do I like to buy gear from, and what have I bought there?', ['bought', 'bh']),
      q('none', 'What car do I drive?', []),
    ],
  },

  // ------------------------------------------------------------------ Priya: airline customer service
  {
    userId: 'priya',
    speaker: 'Priya',
    sessions: [
      session('s1', '2026-09-11T08:00:00Z', [
        u("Hi, I need to book a flight from London Heathrow to Mumbai for my sister's wedding.", 'trip'),
        a('Happy to help! What dates are you looking at?'),
        u('Leaving December 18, returning January 4. Window seat please, I always get airsick in the middle.', 'window'),
        a("I've found BA 199 departing 18 December at 20:55, returning on BA 138 on 4 January. Shall I hold it?", 'offer'),
        u("Yes, hold it. My frequent flyer number is on file, I'm Gold with the Executive Club.", 'tier'),
        a("Done, it's held under your Executive Club Gold membership."),
        u('thanks'),
      ]),
      session('s2', '2026-09-12T09:30:00Z', [
        u("I also need a vegetarian meal on both flights. I don't eat meat or eggs.", 'meal'),
        a("I've requested an Asian vegetarian meal on both legs: no meat, no eggs."),
        u('perfect'),
        u("what's the GBP to INR exchange rate today?"),
        a("I can't provide live exchange rates, but your bank app will have them."),
        u("ok. I'm also travelling with my 4-year-old son Arjun, can you add him?", 'son'),
        a(
          'Added Arjun as a child passenger on both flights. I recommend the bulkhead row for extra legroom; seats 31A and 31B are free.',
          'rec-bulkhead',
        ),
        u('do it'),
      ]),
      session('s3', '2026-10-14T18:00:00Z', [
        u('Change of plan: we need to come back on January 8 instead, the reception got moved.', 'corr-return'),
        a('Your return is now BA 138 on 8 January. There is a £75 change fee.'),
        u('ugh fine'),
        u(
          'Please update my phone to +44 7700 900123, and note that my mother is joining us for the return and needs wheelchair assistance at Mumbai.',
          'pii',
        ),
        a('Updated, and wheelchair assistance is requested at Mumbai for the return flight.'),
      ]),
      session('s4', '2026-11-20T10:00:00Z', [
        u('hello'),
        a('Hi Priya! How can I help today?'),
        u('Can I take an extra bag on the outbound? Lots of wedding gifts lol'),
        a('As Gold you already get three checked bags of 23kg each on this route, so no extra charge.', 'bags'),
        u('haha amazing'),
        u("One more thing: my sister's wedding is on December 27 in Pune, so we'll take a train from Mumbai on the 26th.", 'wedding'),
        a('I suggest the Deccan Queen from Mumbai CSMT: comfortable, and about three hours to Pune.', 'rec-train'),
      ]),
      session('s5', '2026-11-23T09:00:00Z', [
        u('Hi again, can I upgrade the outbound to premium economy with my Avios?', 'upgrade-ask'),
        a('Yes: on BA 199 it is 15,000 Avios per person, and there are seats available.'),
        u('Do it for both of us.'),
        a('Done: you and Arjun are now in premium economy on BA 199.', 'upgrade'),
        u("I'm a nervous flyer, so please always put me near the front of the cabin.", 'nervous'),
        a('Noted: front rows whenever possible.'),
      ]),
    ],
    questions: [
      q('temporal', 'What time does my outbound flight to Mumbai depart?', ['offer']),
      q('correction', 'When am I flying back from Mumbai?', ['corr-return']),
      q('preference', 'What kind of seat do I want, and why?', ['window']),
      q('profile', "What's my frequent flyer status?", ['tier']),
      q('preference', 'What are my meal requirements on flights?', ['meal']),
      q('assistant-recommendation', 'Which seats did you suggest for my son and me?', ['rec-bulkhead']),
      q('assistant-recommendation', 'Which train did you suggest from Mumbai to Pune?', ['rec-train']),
      q('pii', 'Who needs wheelchair assistance, and where?', ['pii']),
      q('ephemeral-noise', 'How old is my son?', ['son']),
      q('chitchat-noise', 'How many checked bags do I get?', ['bags']),
      q('temporal', "When and where is my sister's wedding?", ['wedding']),
      q('alias', 'Am I flying out of LHR or Gatwick?', ['trip']),
      q('multi-session', 'Who is travelling with me on this trip?', ['son', 'pii']),
      q('correction', 'Which cabin am I flying in on the outbound now?', ['upgrade-ask', 'upgrade']),
      q('preference', 'Why do I like to sit near the front of the cabin?', ['nervous']),
      q('none', 'Which hotel am I staying at in Mumbai?', []),
    ],
  },

  // ------------------------------------------------------------------ Tom: family personal assistant
  {
    userId: 'tom',
    sessions: [
      session('s1', '2026-09-04T14:30:00Z', [
        u('Morning. I need help keeping track of family stuff. My wife Jess and I have two kids, Lily (8) and Max (5).', 'family'),
        a('Happy to help, Tom. What should I keep track of first?'),
        u('Lily has piano lessons every Tuesday at 4:30pm, and Max has swim class on Saturdays at 10.', 'kids'),
        a('Got it: Lily piano Tuesdays 4:30pm, Max swimming Saturdays 10am.'),
        u('Max is allergic to peanuts, so any snack or restaurant ideas need to be peanut-free.', 'allergy'),
        a('Noted: peanut-free for Max, always.'),
        u('thx'),
      ]),
      session('s2', '2026-09-19T21:00:00Z', [
        u("Jess's birthday is October 3rd. I want to take her somewhere nice for dinner, she loves Japanese food.", 'jess'),
        a(
          "I'd recommend Kaiseki Mori downtown: a seasonal tasting menu, and they're careful with allergies if the kids come along.",
          'rec-restaurant',
        ),
        u('Just the two of us. Can you remind me to book it a week before?'),
        a("Sure, I'll remind you on September 26 to book Kaiseki Mori.", 'reminder'),
        u("what's the traffic like on I-5 right now"),
        a("I can't see live traffic, your maps app will show it."),
        u('k'),
      ]),
      session('s3', '2026-10-06T02:00:00Z', [
        u('Dinner was great, Jess loved it.'),
        a('So glad to hear it!'),
        u('lol yeah'),
        u('Heads up, Lily switched from piano to violin, lessons are now Thursdays at 5pm.', 'corr-lily'),
        a("Updated: Lily's violin lessons are Thursdays at 5pm."),
        u('Also my dentist appointment is October 22 at 8am with Dr. Alvarez.', 'dentist'),
        a("Noted, I'll remind you the day before."),
        u('great'),
      ]),
      session('s4', '2026-11-09T15:00:00Z', [
        u("We're doing Thanksgiving at my parents' place in Sacramento, driving down from Portland on November 25.", 'thanksgiving'),
        a('Nice! That is roughly a nine-hour drive. Do you want me to plan stops?'),
        u('yes please, the kids get carsick after about two hours.', 'carsick'),
        a('I suggest stopping every 90 minutes or so. Medford and Redding are good halfway points with family restaurants.', 'rec-stops'),
        u(
          "My work number for the school contact list is 206-555-0143, and I'm the emergency contact for Max's class field trip on December 5.",
          'pii',
        ),
        a("Noted: you're the emergency contact for Max's class field trip on December 5."),
      ]),
      session('s5', '2026-11-22T16:00:00Z', [
        u("We're back from Sacramento. Long drive, but the stops helped."),
        a('Glad it worked out!'),
        u('Jess wants a family ski trip in February, somewhere within five hours of Portland.', 'ski'),
        a(
          "Mt. Bachelor is about three and a half hours away and has a great kids' ski school. I recommend booking lessons for Lily and Max early.",
          'rec-bachelor',
        ),
        u('Max hates the cold though, he cried the whole time last winter.'),
        a('Then maybe a half-day lesson for him, and some indoor time at the lodge.'),
      ]),
    ],
    questions: [
      q('profile', "What are my kids' names and ages?", ['family']),
      q('correction', "When are Lily's music lessons now?", ['corr-lily']),
      q('temporal', "When is Max's swim class?", ['kids']),
      q('preference', 'What kind of food does my wife love?', ['jess']),
      q('temporal', 'When are we driving down for Thanksgiving?', ['thanksgiving']),
      q('assistant-recommendation', "Which restaurant did you suggest for Jess's birthday dinner?", ['rec-restaurant']),
      q('assistant-recommendation', 'Where did you suggest we stop on the drive to my parents?', ['rec-stops']),
      q('pii', "When is the field trip I'm the emergency contact for?", ['pii']),
      q('ephemeral-noise', 'When were you going to remind me to book the restaurant?', ['reminder']),
      q('chitchat-noise', 'Who is my dentist?', ['dentist']),
      q('alias', 'Where are we spending Turkey Day this year?', ['thanksgiving']),
      q('preference', 'Which foods do I have to avoid when picking snacks for Max?', ['allergy']),
      q('multi-session', "What are the kids' weekly activities now?", ['kids', 'corr-lily']),
      q('assistant-recommendation', 'Which ski resort did you suggest for the family trip?', ['rec-bachelor']),
      q('temporal', 'When are we planning the family ski trip?', ['ski']),
      q('none', "What's the interest rate on my mortgage?", []),
    ],
  },

  // ------------------------------------------------------------------ Sofia: travel and food
  {
    userId: 'sofia',
    sessions: [
      session('s1', '2026-09-12T10:00:00Z', [
        u("Hi! I'm Sofia, planning a solo trip to Lisbon for the first week of November.", 'trip'),
        a('Lisbon in November is lovely, and there are fewer crowds. Where are you flying from?'),
        u("From Zurich. I'm Italian, but I live in Zurich for work, I'm a pharmacist.", 'profile'),
        a('Easy flights then. What do you enjoy on a trip?'),
        u("I love walking, old neighborhoods and tiled buildings. I'm vegetarian, by the way.", 'likes'),
        a(
          'Then stay in Alfama: it is walkable and full of azulejos. For food I recommend Ao 26 Vegan Food Project, one of the best plant-based places in town.',
          'rec-alfama',
        ),
        u('sounds perfect'),
      ]),
      session('s2', '2026-09-28T11:00:00Z', [
        u('Booked! Flight LX 2084 from Zurich on November 2 at 7:15, coming back November 8.', 'flight'),
        a('Great. Do you want help with accommodation?'),
        u('I already booked a guesthouse in Alfama called Casa dos Azulejos, six nights.', 'hotel'),
        a(
          'Lovely choice. A day trip to Sintra is a must: I suggest going on a weekday and buying the Pena Palace timed ticket online in advance.',
          'rec-sintra',
        ),
        u("what's the weather forecast for Lisbon next week?"),
        a("I can't fetch forecasts, but November is usually mild there, around 15 to 19°C with some rain."),
        u('ok ty'),
      ]),
      session('s3', '2026-10-16T09:00:00Z', [
        u("Small update on my diet: I started eating fish again, so I'm pescatarian now, not vegetarian.", 'corr-diet'),
        a("Good to know, that opens up Lisbon's seafood. I'd recommend Cervejaria Ramiro for grilled prawns and clams.", 'rec-ramiro'),
        u('haha yes!!'),
        u('ok'),
        u("Also I'm terrified of heights, so skip any viewpoint where I'd have to climb a tower.", 'heights'),
        a('Noted, no tower climbs. Miradouro da Senhora do Monte is reachable by tram with no stairs.', 'viewpoint'),
      ]),
      session('s4', '2026-11-12T18:00:00Z', [
        u(
          "Back from Lisbon! Ramiro was incredible. Next up: my friend Giulia's wedding in Florence on May 16, and I need to book a hotel by the end of January.",
          'florence',
        ),
        a("Congrats to Giulia! Book early for May. I recommend staying in Oltrarno, it's quieter than the Duomo area.", 'rec-oltrarno'),
        u(
          'My booking email is sofia.rossi@example.ch, and the hotel must have an elevator because my mum is coming and she cannot do stairs.',
          'pii',
        ),
        a('Noted: a hotel with an elevator, for your mum.'),
      ]),
      session('s5', '2026-11-24T18:00:00Z', [
        u('I booked the Florence hotel! Hotel Silla in Oltrarno, and it has an elevator.', 'silla'),
        a("Perfect, and it's right on the river."),
        u('For the wedding I need a dress. I usually wear a size 38 and I prefer muted colors, nothing bright.', 'dress'),
        a('Noted. For Florence in May, sage or dusty blue would be lovely.'),
        u('haha grazie'),
      ]),
    ],
    questions: [
      q('profile', 'What do I do for work, and where do I live?', ['profile']),
      q('correction', "What's my diet now?", ['corr-diet']),
      q('temporal', 'When does my flight to Lisbon leave?', ['flight']),
      q('assistant-recommendation', 'Which seafood place did you recommend in Lisbon?', ['rec-ramiro']),
      q('assistant-recommendation', 'What was your tip for visiting Sintra?', ['rec-sintra']),
      q('preference', 'What do I enjoy doing when I travel?', ['likes']),
      q('preference', 'What should you never suggest to me on a trip?', ['heights']),
      q('pii', 'What must the Florence hotel have?', ['pii']),
      q('ephemeral-noise', 'Where did I stay in Lisbon?', ['hotel']),
      q('chitchat-noise', "Which viewpoint did you say doesn't need stairs?", ['viewpoint']),
      q('temporal', "When is Giulia's wedding, and by when do I have to book the hotel?", ['florence']),
      q('alias', 'Which area did you suggest I stay in for Firenze?', ['rec-oltrarno']),
      q('multi-session', 'Which neighborhoods did you recommend for my stays in Lisbon and in Florence?', ['rec-alfama', 'rec-oltrarno']),
      q('preference', 'What colors do I like to wear?', ['dress']),
      q('multi-session', "Which hotel did I book for Giulia's wedding, and what did it need to have?", ['pii', 'silla']),
      q('none', "What's my favorite football team?", []),
    ],
  },

  // ------------------------------------------------------------------ Amy: bilingual product manager in Shanghai
  {
    userId: 'amy',
    sessions: [
      session('s1', '2026-09-07T02:00:00Z', [
        u('Hi，我是 Amy，在上海一家跨境电商公司做产品经理，主要负责 checkout 流程。', 'profile'),
        a('你好 Amy！checkout 是转化率的关键环节。最近在忙什么？'),
        u('我们在做 one-page checkout 的改版，目标是把支付转化率从 62% 提到 70%。', 'goal'),
        a('目标很明确。建议先做漏斗分析，看用户在哪一步流失最多。我推荐用 Amplitude 做漏斗，比 GA 更适合做产品分析。', 'rec-amplitude'),
        u('我们公司已经买了 Mixpanel，不想再加工具了。', 'mixpanel'),
        a('那就用 Mixpanel 的 Funnels 报表，一样能做。'),
        u('ok 好的'),
      ]),
      session('s2', '2026-09-21T06:00:00Z', [
        u('这个改版要在 11 月 11 号之前上线，赶双十一。', 'deadline'),
        a('时间很紧，建议分两期：第一期先上地址自动补全和 Apple Pay，第二期再上一页式布局。', 'rec-phases'),
        u('好主意'),
        u('I prefer written specs over meetings, 会太多了效率很低。', 'written'),
        a('明白，之后给你的建议都尽量整理成文档。'),
        u('帮我查一下今天的美元汇率'),
        a('我查不到实时汇率哦，可以看一下银行 App。'),
      ]),
      session('s3', '2026-10-19T07:30:00Z', [
        u('改版上线时间推迟了，改成 11 月 25 号，黑五之前上。', 'corr-deadline'),
        a('收到，黑五前上线。多出来的两周可以先做一轮 A/B 测试。'),
        u('嗯嗯'),
        u('我们的 weekly sync 定在每周四上午十点，工程和设计都参加。', 'weekly'),
        a('好的，每周四 10:00 的 weekly sync。'),
        u('lol 今天又开了三个会'),
      ]),
      session('s4', '2026-11-17T03:00:00Z', [
        u('明年一月我要转去做 growth PM 了，checkout 交给同事 Kevin。', 'role'),
        a('恭喜！交接的时候建议写一份 checkout 的决策记录，把每个关键取舍的原因写清楚，方便 Kevin 接手。', 'rec-handover'),
        u('Kevin 的电话 13698765432 我存一下，他下周一开始跟我做交接。', 'pii'),
        a('好的，下周一开始交接。'),
        u('谢谢 👍'),
      ]),
      session('s5', '2026-11-22T02:00:00Z', [
        u('Kevin 已经开始接手了，决策记录我也发给他了。'),
        a('很好，有问题让他随时找你。'),
        u('growth 那边明年 Q1 的 OKR 是把新用户首单转化率提高 15%。', 'okr'),
        a('可以先拿新人券和首单包邮做几组 A/B 测试。'),
        u('I usually work from home on Fridays, so put deep-work stuff on Fridays.', 'wfh'),
        a('Got it, Fridays for deep work.'),
      ]),
    ],
    questions: [
      q('profile', 'What product area am I responsible for at work?', ['profile']),
      q('correction', 'When does the checkout redesign launch now?', ['corr-deadline']),
      q('assistant-recommendation', 'Which analytics tool did you first recommend for the funnel analysis?', ['rec-amplitude']),
      q('alias', '单页结账改版的支付转化率目标是多少？', ['goal']),
      q('preference', 'Do I prefer meetings or written docs?', ['written']),
      q('pii', 'When does Kevin start the handover with me?', ['pii']),
      q('ephemeral-noise', '改版第一期你建议先上哪些功能？', ['rec-phases']),
      q('temporal', '我什么时候转岗，转去做什么？', ['role']),
      q('chitchat-noise', 'When is our weekly sync, and who attends?', ['weekly']),
      q('multi-session', "For the checkout redesign, what's the conversion target and the current launch date?", ['goal', 'corr-deadline']),
      q('assistant-recommendation', 'What did you suggest I write up for the handover?', ['rec-handover']),
      q('profile', '我在哪个城市、什么类型的公司上班？', ['profile']),
      q('temporal', '我明年 Q1 的 OKR 是什么？', ['okr']),
      q('preference', 'Which day do I usually work from home?', ['wfh']),
      q('none', '我的猫叫什么名字？', []),
    ],
  },
];

// ---------------------------------------------------------------------------------------------

const HOUR = 3_600_000;

function build(users = USERS) {
  const lines = [];
  for (const user of users) {
    const byLabel = new Map();
    let last = 0;
    for (const s of user.sessions) {
      let at = Date.parse(s.start);
      s.turns.forEach((turn, i) => {
        if (i > 0) at += Math.min(240, 25 + turn.text.length * 2) * 1000; // typing time, roughly
        const turnId = `${s.id}-t${String(i + 1).padStart(2, '0')}`;
        if (turn.label) {
          if (byLabel.has(turn.label)) throw new Error(`${user.userId}: label ${turn.label} used twice`);
          byLabel.set(turn.label, { turnId, at });
        }
        lines.push({
          type: 'turn',
          userId: user.userId,
          sessionId: s.id,
          turnId,
          role: turn.role,
          ...(user.speaker && turn.role === 'user' ? { speaker: user.speaker } : {}),
          text: turn.text,
          occurredAt: new Date(at).toISOString().replace('.000Z', 'Z'),
        });
        if (at <= last) throw new Error(`${user.userId}/${s.id}: sessions overlap`);
        last = at;
      });
    }
    // Questions come after the last session: one every five hours, starting a day later.
    user.questions.forEach((question, i) => {
      const askedAt = last + 24 * HOUR + i * 5 * HOUR;
      const evidenceTurnIds = question.evidence.map((label) => {
        const turn = byLabel.get(label);
        if (!turn) throw new Error(`${user.userId}: unknown label ${label}`);
        return turn.turnId;
      });
      lines.push({
        type: 'question',
        userId: user.userId,
        questionId: `${user.userId}-q${String(i + 1).padStart(2, '0')}`,
        question: question.question,
        evidenceTurnIds,
        askedAt: new Date(Math.ceil(askedAt / 60_000) * 60_000).toISOString().replace('.000Z', 'Z'),
        category: question.category,
      });
    });
  }
  return lines;
}

function stats(lines) {
  const turns = lines.filter((l) => l.type === 'turn');
  const questions = lines.filter((l) => l.type === 'question');
  const han = /\p{Script=Han}/u;
  const byCategory = {};
  for (const q of questions) {
    const c = (byCategory[q.category] ??= { zh: 0, en: 0 });
    c[han.test(q.question) ? 'zh' : 'en']++;
  }
  return {
    users: new Set(lines.map((l) => l.userId)).size,
    sessions: new Set(turns.map((t) => `${t.userId}/${t.sessionId}`)).size,
    turns: turns.length,
    userTurns: turns.filter((t) => t.role === 'user').length,
    questions: questions.length,
    zh: questions.filter((q) => han.test(q.question)).length,
    en: questions.filter((q) => !han.test(q.question)).length,
    byCategory,
  };
}

/** Writes (or with --check, verifies) `file` from `users`, and prints the counts. */
function main(users, file) {
  const lines = build(users);
  const content = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  if (process.argv.includes('--check')) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== content) {
      console.error(`${file} is out of date: run node test/eval/${path.basename(require.main.filename)}`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(file, content);
  }
  console.log(JSON.stringify(stats(lines), null, 1));
}

module.exports = { u, a, session, q, build, stats, main };

if (require.main === module) main(USERS, path.join(__dirname, 'engram-bilingual.jsonl'));
