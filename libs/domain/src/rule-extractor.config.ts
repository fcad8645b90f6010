import type { MemoryKind } from '@engram/contracts';

/**
 * The bilingual rule extractor's vocabulary. Everything language-specific lives here as data;
 * `rule-extractor.ts` only knows the shapes of sentences ("<cue> <object>", "<attribute> 用 <value>").
 * Adding a cue, an attribute word or a product is a one-line change here.
 */

/** A known product or technology: resolves aliases to one spelling, and implies an attribute. */
export interface CatalogEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The single-valued attribute it fills ("VS Code" → editor): a new value supersedes the old. */
  readonly category: string;
  /** Names that are also common words ("Go", "Rust", "Cursor") match only with this exact case. */
  readonly exactCase?: boolean;
}

/**
 * What makes a clause a rule for how the assistant should act (kind `procedure`): "以后报价先给区间再给明细",
 * "always answer in English", "别用表情包", "代码示例用 TypeScript". See `RuleExtractor`'s procedure rule.
 */
export interface ProcedureCues {
  /** Words that make an instruction standing ("以后", "每次", "always", "from now on"), anywhere in the clause. */
  readonly standing: readonly string[];
  /**
   * Prohibitions and polite asks ("别用", "不要", "请用", "don't", "please"): an instruction, but as often
   * for this answer as for all of them, so one counts only with a topic ("please explain how Kafka
   * works" is a request, "please never use emojis" a rule).
   */
  readonly asks: readonly string[];
  /**
   * What an instruction asks the assistant to do ("用", "给", "use", "write"): with a directive, one of
   * these or a response word must be there ("每次代码评审都很慢" instructs nothing); opening the clause,
   * one is an imperative of its own ("用中文回答", "use TypeScript for code examples").
   */
  readonly actions: readonly string[];
  /** What the assistant does when it answers ("回答", "reply"): the instruction is about answering. */
  readonly responses: readonly string[];
  /**
   * What a rule is about: topic slug → words naming it. A later rule on the same topic replaces the
   * earlier one (merge key `user/procedure:<topic>`); a rule naming no topic is a memory of its own.
   */
  readonly topics: Readonly<Record<string, readonly string[]>>;
  /** Words right after a topic that make "<topic> …" an instruction ("代码示例用…", "报价先给…", "code examples in…"). */
  readonly topicInstructions: readonly string[];
  /** This answer only, not a standing rule ("这个问题用英文回答", "just this once"). */
  readonly oneOff: readonly string[];
  /** A first-person clause is about the user, unless it addresses the assistant ("我希望你…", "I want you to…"). */
  readonly addressing: readonly string[];
  /** A rule that points back ("keep that in mind when you write snippets", "以后都按这个来"): its content is the whole turn. */
  readonly anaphora: readonly string[];
}

export interface RuleExtractorConfig {
  readonly version: string;
  readonly procedures: ProcedureCues;
  /** Attribute slug → words that name it in either language (数据库 / database → `database`). */
  readonly attributes: Readonly<Record<string, readonly string[]>>;
  /** Kind of a known attribute; others take the kind of the cue that found them. */
  readonly attributeKinds: Readonly<Record<string, MemoryKind>>;
  /** Importance of attributes that matter more than their kind suggests (money, dates). */
  readonly attributeImportance: Readonly<Record<string, number>>;
  readonly catalog: readonly CatalogEntry[];
  /** Third parties the user talks about ("我老婆不吃香菜" → subject `wife`). */
  readonly relations: Readonly<Record<string, readonly string[]>>;
  readonly cues: {
    /** Leading words that carry nothing ("然后", "by the way"). */
    readonly connectors: readonly string[];
    readonly remember: readonly string[];
    readonly question: readonly string[];
    readonly questionEndings: readonly string[];
    readonly request: readonly string[];
    readonly retract: readonly string[];
    /** Retractions that point at whatever was said last ("that's no longer true"). */
    readonly retractAnaphora: readonly string[];
    /** "actually …", "其实 …": what follows is a corrected statement. */
    readonly correctionLead: readonly string[];
    /**
     * Correction leads that are as often conversation ("sorry to hear that", "wait, really?", "I mean
     * …"): they make the clause more certain but do not let it land on another memory.
     */
    readonly weakCorrectionLead: readonly string[];
    /**
     * Leads that make a correction only as a piece of their own ("no, make it 10", "不对，改成9点"):
     * "no sugar please" is not one.
     */
    readonly correctionAlone: readonly string[];
    /** "<attribute> 改成 <value>": verbs that put a new value on an attribute. */
    readonly changeVerbs: readonly string[];
    /**
     * Change verbs that may open a clause as a correction of what was just said ("改成9点", "make it
     * 10"); "now I have a drive for backups" is no correction, though "is now" after an attribute is.
     */
    readonly openChangeVerbs: readonly string[];
    /** Words a phrase naming an attribute never holds ("the tank is big enough now…" names none). */
    readonly notInAttribute: readonly string[];
    /** "set <attribute> to <value>": verbs that open an assignment closed by "to". */
    readonly assignLeads: readonly string[];
    /**
     * Words that make a sentence about money: only then is a bare amount a budget ("改成五千块",
     * "make it $500"); "改成世纪大道100号" and "changed to room 301" are not.
     */
    readonly money: readonly string[];
    /** Forget requests whose object the other rules can read ("忘掉我之前说的喜欢吃榴莲" → the preference). */
    readonly forget: readonly string[];
    /** What may come before a forget request's verb ("请忘掉…", "please forget…"); anything else ("I'll never forget…") is not one. */
    readonly forgetAsk: readonly string[];
    /** Words around a forget request's object ("我之前说的", "这件事", "what I said about"). */
    readonly forgetFillers: readonly string[];
    /** What may come before a "remember" cue ("这条必须永远记住：…", "always remember that …"). */
    readonly rememberPreamble: readonly string[];
    /** "永远", "绝对", "以后都", "always", "never forget": said with emphasis, so as important as "记住". */
    readonly emphasis: readonly string[];
    /** "其实我也喜欢 Python": an addition, not a correction of what was said before. */
    readonly additive: readonly string[];
    /** Between an attribute and its copula ("现在的岗位是…", "my position now is …"). */
    readonly nowAdverbs: readonly string[];
    /** Leading words of a correction's bare new value ("我要低卡方案" → "低卡方案"). */
    readonly openValueFillers: readonly string[];
    readonly name: readonly string[];
    readonly employer: readonly string[];
    readonly location: readonly string[];
    readonly hometown: readonly string[];
    readonly role: readonly string[];
    readonly roleSuffixes: readonly string[];
    readonly allergy: readonly string[];
    readonly like: readonly string[];
    readonly dislike: readonly string[];
    readonly habit: readonly string[];
    readonly decision: readonly string[];
    readonly task: readonly string[];
    readonly deadline: readonly string[];
    readonly copulas: readonly string[];
    readonly recommendation: readonly string[];
    readonly promise: readonly string[];
    readonly conclusion: readonly string[];
    /**
     * "买个空气净化器，预算三千": what a budget in the same turn is for. The budget's attribute becomes
     * `budget:<thing>`, so a gift's budget and a purifier's are two memories, not one superseding the other.
     */
    readonly purchase: readonly string[];
  };
  /** Verbs, adverbs and articles stripped from the front of an object ("用 VS Code" → "VS Code"). */
  readonly leadingFillers: readonly string[];
  /** Words stripped from the end of a value ("五万了" → "五万", "三万以内" → "三万"). */
  readonly trailingParticles: readonly string[];
  /** Sentence-initial words that look like proper nouns but are not. */
  readonly notEntities: readonly string[];
  /** "Dr. Alvarez", "Mt. Bachelor": a full stop after these does not end a clause. */
  readonly abbreviations: readonly string[];
  /** "I'm Italian", "我是意大利人": a nationality, not a name. */
  readonly nationalities: readonly string[];
  /** "我在一家外企做财务": the place before 做/当 is an employer when it ends like an organisation. */
  readonly organisationSuffixes: readonly string[];
  /**
   * "我在北京工作", "我在家上班": where one works is not always an employer. A place named by one of
   * these (or ending in `placeSuffixes`: 市, 省, 区, 县) is the user's location; home is neither.
   */
  readonly places: { readonly home: readonly string[]; readonly cities: readonly string[]; readonly placeSuffixes: readonly string[] };
}

export const defaultRuleExtractorConfig: RuleExtractorConfig = {
  version: 'rules-7',
  procedures: {
    standing: [
      '以后', '今后', '往后', '从现在起', '从现在开始', '从今以后', '每次', '下次', '一律', '统一用', '都要', '都用',
      '始终用', '总是用', '务必', 'always', 'never', 'from now on', 'going forward', 'in the future', 'in future',
      'every time', 'no more',
    ],
    // Not bare 别 or 请: they are inside 特别, 区别, 请假, 申请.
    asks: [
      '别用', '别再', '别给', '别发', '别加', '别写', '别太', '千万别', '不要', '不许', '不准', '禁止', '请用', '请你',
      '请别', '请不要', '请始终', '请一直', '尽量', '一定要', "don't", 'do not', 'please', 'stop', 'avoid', 'make sure',
    ],
    actions: [
      '用', '给', '写', '加', '发', '回', '先', '带', '改成', '换成',
      'use', 'using', 'switch to', 'give', 'write', 'add', 'send', 'include', 'keep', 'put', 'show', 'start', 'list', 'format',
    ],
    responses: [
      '回答', '回复', '答复', '输出', '解释', '举例', '讲解', '总结',
      'answer', 'answers', 'reply', 'replies', 'respond', 'response', 'responses', 'explain', 'explanations', 'talk to me',
    ],
    topics: {
      response_language: [
        '中文', '英文', '英语', '汉语', '普通话', '日语', '日文', '繁体', '简体',
        'English', 'Chinese', 'Mandarin', 'Japanese', 'Spanish', 'French', 'German',
      ],
      // Not bare "code": it is in "VS Code".
      code_examples: ['代码示例', '示例代码', '代码', 'code examples', 'code example', 'code samples', 'code sample', 'code snippets', 'snippets', 'sample code', 'example code', 'code blocks'],
      emoji: ['表情包', '表情符号', '表情', 'emoji', 'emojis', 'emoticons', 'stickers'],
      quote: ['报价', 'quotes', 'quote', 'quoting', 'pricing'],
      length: ['简短', '简洁', '精简', '啰嗦', '长篇大论', '字数', 'short', 'shorter', 'concise', 'brief', 'verbose', 'long-winded'],
      format: ['格式', 'markdown', '表格', '列表', 'bullet points', 'bullets', 'tables', 'format', 'formatting'],
      tone: ['语气', '口吻', 'tone', 'formal', 'casual'],
    },
    topicInstructions: [
      '用', '要', '请', '先', '都', '一律', '统一', '只', '尽量', '控制在', '保持', '必须', '务必', '别', '不要',
      'in', 'should', 'must', 'always', 'only', 'first', 'please',
    ],
    oneOff: ['这个问题', '这次', '这一次', '这一题', '这段', 'this question', 'this time', 'this one', 'just this once', 'right now', 'for now'],
    addressing: ['希望你', '要你', '请你', '你以后', '你今后', '你每次', 'want you to', 'like you to', 'need you to', 'you should', 'you always', 'you never'],
    anaphora: ['这个', '这些', '这点', '这样', '上面', '以上', 'that', 'this', 'these', 'those', 'the above', 'it in mind'],
  },
  attributes: {
    name: ['名字', '姓名', '称呼', 'name'],
    employer: ['公司', '单位', 'employer', 'company'],
    role: ['职位', '岗位', '职业', 'job title', 'role', 'position'],
    location: ['住址', '所在城市', '城市', 'city', 'location'],
    hometown: ['老家', '家乡', 'hometown'],
    birthday: ['生日', '出生日期', 'birthday', 'date of birth'],
    tech_stack: ['技术栈', '技术选型', 'tech stack', 'stack', 'technology stack'],
    database: ['数据库', 'database', 'db'],
    editor: ['编辑器', '开发工具', 'IDE', 'editor', 'code editor'],
    language: ['编程语言', '开发语言', '语言', 'programming language', 'language'],
    framework: ['框架', '后端框架', '前端框架', 'framework'],
    message_queue: ['消息队列', '消息中间件', 'MQ', 'message queue', 'message broker'],
    cache: ['缓存', 'cache'],
    cloud: ['云服务', '云平台', '云厂商', 'cloud provider', 'cloud'],
    os: ['操作系统', 'operating system', 'OS'],
    budget: ['预算', '经费', 'budget'],
    deadline: ['截止日期', '截止时间', '截止', '最后期限', 'deadline', 'due date'],
    weekly_meeting: ['例会', '周会', 'weekly meeting', 'weekly sync', 'team meeting'],
    standup: ['站会', '晨会', 'standup', 'stand-up', 'daily standup'],
    email: ['邮箱', 'email', 'e-mail'],
    phone: ['手机号', '电话', 'phone number', 'phone'],
  },
  attributeKinds: {
    name: 'profile',
    employer: 'profile',
    role: 'profile',
    location: 'profile',
    hometown: 'profile',
    birthday: 'profile',
    tech_stack: 'profile',
    email: 'profile',
    phone: 'profile',
    database: 'fact',
    language: 'fact',
    framework: 'fact',
    message_queue: 'fact',
    cache: 'fact',
    cloud: 'fact',
    editor: 'preference',
    os: 'preference',
    budget: 'fact',
    deadline: 'task',
    weekly_meeting: 'fact',
    standup: 'fact',
  },
  attributeImportance: {
    budget: 0.8,
    deadline: 0.8,
    weekly_meeting: 0.75,
    standup: 0.75,
    tech_stack: 0.85,
  },
  catalog: [
    { name: 'VS Code', aliases: ['VSCode', 'Visual Studio Code', 'vscode'], category: 'editor' },
    { name: 'Vim', category: 'editor' },
    { name: 'Neovim', aliases: ['nvim'], category: 'editor' },
    { name: 'Emacs', category: 'editor' },
    { name: 'IntelliJ IDEA', aliases: ['IntelliJ'], category: 'editor' },
    { name: 'IntelliJ IDEA', aliases: ['IDEA'], category: 'editor', exactCase: true },
    { name: 'WebStorm', category: 'editor' },
    { name: 'PyCharm', category: 'editor' },
    { name: 'Cursor', category: 'editor', exactCase: true },
    { name: 'Sublime Text', aliases: ['Sublime'], category: 'editor' },
    { name: 'Zed', category: 'editor', exactCase: true },
    { name: 'PostgreSQL', aliases: ['Postgres', 'pgsql'], category: 'database' },
    { name: 'PostgreSQL', aliases: ['PG'], category: 'database', exactCase: true },
    { name: 'MySQL', category: 'database' },
    { name: 'MariaDB', category: 'database' },
    { name: 'MongoDB', aliases: ['Mongo'], category: 'database' },
    { name: 'SQLite', category: 'database' },
    { name: 'Oracle', category: 'database', exactCase: true },
    { name: 'SQL Server', aliases: ['MSSQL'], category: 'database' },
    { name: 'TiDB', category: 'database' },
    { name: 'ClickHouse', category: 'database' },
    { name: 'Elasticsearch', category: 'search_engine' },
    { name: 'Elasticsearch', aliases: ['ES'], category: 'search_engine', exactCase: true },
    { name: 'Redis', category: 'cache' },
    { name: 'Memcached', category: 'cache' },
    { name: 'Kafka', aliases: ['Apache Kafka'], category: 'message_queue' },
    { name: 'RabbitMQ', category: 'message_queue' },
    { name: 'RocketMQ', category: 'message_queue' },
    { name: 'Pulsar', category: 'message_queue', exactCase: true },
    { name: 'NATS', category: 'message_queue', exactCase: true },
    { name: 'TypeScript', category: 'language' },
    { name: 'TypeScript', aliases: ['TS'], category: 'language', exactCase: true },
    { name: 'JavaScript', category: 'language' },
    { name: 'JavaScript', aliases: ['JS'], category: 'language', exactCase: true },
    { name: 'Python', category: 'language' },
    { name: 'Java', category: 'language' },
    { name: 'Go', aliases: ['Golang'], category: 'language', exactCase: true },
    { name: 'Rust', category: 'language', exactCase: true },
    { name: 'Kotlin', category: 'language' },
    { name: 'Swift', category: 'language', exactCase: true },
    { name: 'C++', aliases: ['cpp'], category: 'language' },
    { name: 'C#', aliases: ['csharp'], category: 'language' },
    { name: 'PHP', category: 'language' },
    { name: 'Ruby', category: 'language', exactCase: true },
    { name: 'Spring Boot', aliases: ['SpringBoot'], category: 'framework' },
    { name: 'Spring Cloud', category: 'framework' },
    { name: 'NestJS', aliases: ['Nest.js'], category: 'framework' },
    { name: 'Express', aliases: ['Express.js'], category: 'framework', exactCase: true },
    { name: 'Django', category: 'framework' },
    { name: 'Flask', category: 'framework', exactCase: true },
    { name: 'FastAPI', category: 'framework' },
    { name: 'Rails', aliases: ['Ruby on Rails'], category: 'framework', exactCase: true },
    { name: 'React', category: 'frontend_framework', exactCase: true },
    { name: 'Vue', aliases: ['Vue.js', 'Vue3'], category: 'frontend_framework' },
    { name: 'Angular', category: 'frontend_framework' },
    { name: 'Next.js', aliases: ['NextJS'], category: 'frontend_framework' },
    { name: 'Svelte', category: 'frontend_framework', exactCase: true },
    { name: 'AWS', aliases: ['Amazon Web Services'], category: 'cloud' },
    { name: 'GCP', aliases: ['Google Cloud'], category: 'cloud' },
    { name: 'Azure', category: 'cloud' },
    { name: '阿里云', aliases: ['Aliyun', 'Alibaba Cloud'], category: 'cloud' },
    { name: '腾讯云', aliases: ['Tencent Cloud'], category: 'cloud' },
    { name: 'Kubernetes', aliases: ['K8s'], category: 'orchestration' },
    { name: 'Docker', category: 'container_runtime' },
    { name: 'macOS', aliases: ['MacBook'], category: 'os' },
    { name: 'macOS', aliases: ['Mac'], category: 'os', exactCase: true },
    { name: 'Windows', category: 'os', exactCase: true },
    { name: 'Linux', aliases: ['Ubuntu'], category: 'os' },
  ],
  relations: {
    wife: ['老婆', '妻子', '太太', '媳妇', 'wife'],
    husband: ['老公', '丈夫', '先生', 'husband'],
    son: ['儿子', 'son'],
    daughter: ['女儿', 'daughter'],
    mother: ['妈妈', '母亲', '我妈', 'mom', 'mother'],
    father: ['爸爸', '父亲', '我爸', 'dad', 'father'],
    boss: ['老板', '领导', '上司', 'boss', 'manager'],
    partner: ['男朋友', '女朋友', '对象', 'boyfriend', 'girlfriend', 'partner'],
  },
  cues: {
    connectors: [
      '然后', '而且', '并且', '另外', '还有', '但是', '不过', '所以', '对了', '顺便说一下', '顺便', '哦', '噢', '嗯', '啊',
      '那', '好的', '好', 'and', 'also', 'but', 'so', 'btw', 'by the way', 'oh', 'well', 'ok', 'okay', 'anyway', 'plus',
      'hey', 'hi',
    ],
    remember: [
      '请记住', '帮我记住', '记住', '记一下', '帮我记一下', '别忘了', '要记得', 'please remember', 'remember that',
      'remember', "don't forget that", "don't forget", 'never forget that', 'never forget', "don't ever forget", 'note that', 'keep in mind that', 'keep in mind', 'fyi',
    ],
    question: [
      'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'do you', 'did you', 'can you',
      'could you', 'would you', 'will you', 'is it', 'are you', 'is there', 'are there', 'should i', 'shall we',
    ],
    questionEndings: ['吗', '呢', '么', '什么', '哪个', '哪家', '哪里', '多少', '几点', '怎么样', '如何', '是不是', '对不对', '没有'],
    request: [
      '帮我', '请你', '麻烦你', '给我', '你帮', '能不能', '可不可以', '查一下', '看看', 'please', 'help me', 'can you',
      'could you', 'show me', 'tell me', 'give me', 'find me', 'look up',
    ],
    retract: [
      '忘掉', '忘记我', '忘了我', '忘了吧', '别记', '不用记', '不要记', '删掉', '删除', '作废', '取消了', '取消', '不再',
      'forget about', 'forget', 'disregard', 'ignore what i said about', 'no longer', 'not anymore', 'is cancelled',
      'was cancelled', 'is canceled', 'cancel',
    ],
    retractAnaphora: [
      "that's no longer true", 'that is no longer true', "that's not true anymore", 'that is not true anymore',
      "that's not the case anymore", 'scratch that', 'forget that', 'forget it', 'never mind', 'nevermind',
      'ignore that', 'disregard that', '那个不对了', '那个不算', '这个不算', '当我没说', '忘掉它', '忘了它', '不作数',
      '已经不是这样了', '不是这样了',
    ],
    correctionLead: [
      'actually', 'correction', 'sorry', 'i meant', 'i mean', 'to be precise', 'wait', '其实', '更正一下', '更正',
      '纠正一下', '纠正', '说错了', '我说错了', '准确地说', '应该是', '我改主意了', '改主意了', '我变卦了',
      "i've changed my mind", 'i have changed my mind', 'i changed my mind', 'changed my mind', 'on second thought',
      'make it', 'make that', 'change of plan', 'change of plans',
    ],
    weakCorrectionLead: ['sorry', 'wait', 'i mean', 'to be precise', '准确地说', '应该是'],
    correctionAlone: ['no', 'nope', 'no no', 'not quite', 'wrong', '不对', '不对不对', '不是的', '错了', '不不'],
    changeVerbs: [
      '改成', '改为', '改到', '换成', '换到', '提到', '提高到', '涨到', '加到', '增加到', '降到', '降低到', '减到',
      '减少到', '调整为', '调整到', '调到', '变成', '变为', '改用', '换用', '推迟到', '提前到', '挪到',
      'changed to', 'change it to', 'changed it to', 'is now', 'are now', 'moved to', 'increased to', 'raised to',
      'bumped to', 'went up to', 'dropped to', 'reduced to', 'lowered to', 'switched to', 'switching to',
      'pushed to', 'postponed to', 'now',
    ],
    openChangeVerbs: [
      '改成', '改为', '改到', '换成', '换到', '提到', '提高到', '涨到', '降到', '降低到', '调整为', '调整到', '调到', '推迟到',
      '提前到', '挪到', 'change it to', 'changed it to', 'make it', 'make that',
    ],
    notInAttribute: [
      'is', 'are', 'was', 'were', 'am', 'be', 'been', 'has', 'have', 'had', 'will', 'would', 'can', 'could', 'should',
      '我', '你', '他', '她', '是', '有', '了', '在',
    ],
    assignLeads: ['set', 'move', 'change', 'reschedule', 'update', 'switch', 'push', 'put'],
    money: [
      '预算', '经费', '钱', '元', '块', '花费', '开销', '工资', '薪资', '月薪', '年薪', '费用', '美元', '人民币',
      'budget', 'spend', 'spending', 'cost', 'costs', 'price', 'salary', 'pay', 'afford', 'dollars', 'bucks', '$', '¥', '￥', '€', '£',
    ],
    forgetAsk: ['请', '帮我', '麻烦你', '麻烦', '你', '就', 'please', 'can you', 'could you', 'just'],
    forget: ['忘掉', '忘记', '忘了', '别记', '不用记', '不要记', '删掉', 'forget about', 'forget', 'disregard', 'ignore what i said about'],
    forgetFillers: [
      '我之前说过的', '我之前说的', '之前说过的', '之前说的', '我刚才说的', '刚才说的', '我说过的', '我说的', '关于',
      '这件事', '那件事', '这个事', '这事', '的事', '吧', 'what i said about', 'what i told you about', 'that i said', 'i said',
      'that', 'about',
    ],
    rememberPreamble: [
      '这条', '这个', '这件事', '这一点', '你', '请', '一定要', '一定', '必须', '务必', '要', '永远', '绝对', '千万',
      'please', 'you must', 'must', 'always',
    ],
    emphasis: ['永远', '绝对', '以后都', '千万', 'always', 'never forget', 'never ever'],
    additive: ['也', 'also', 'too', 'as well'],
    nowAdverbs: ['现在', '目前', '如今', 'now', 'currently'],
    openValueFillers: ['我想要', '我要', '我想', '我们要', 'we want', 'i want', "i'd like", 'i would like', 'i need'],
    name: ['我叫', '我的名字是', '我的名字叫', '叫我', '名字是', 'my name is', 'call me', "my name's", 'i go by'],
    employer: ['我在', 'i work at', 'i work for', "i'm working at", 'i am working at', 'i joined', 'i work with'],
    location: ['我住在', '我住', '住在', '我现在在', '我人在', '我目前在', '定居在', 'i live in', "i'm based in", 'i am based in', 'i moved to'],
    hometown: ['我来自', '我老家是', '我老家在', '老家是', '老家在', "i'm from", 'i am from', 'i come from', 'i grew up in'],
    role: ['我是一名', '我是一个', '我的职位是', '我的工作是', '我做', '我当', "i'm a", "i'm an", 'i am a', 'i am an', 'i work as a', 'i work as an', 'i work as', 'my role is', 'my job is'],
    roleSuffixes: [
      '工程师', '经理', '设计师', '开发', '程序员', '架构师', '产品经理', '运营', '负责人', '总监', '主管', '学生',
      '老师', '教师', '医生', '护士', '律师', '会计', '研究员', '分析师', '创始人', '老板', 'CTO', 'CEO', '实习生',
      'engineer', 'developer', 'manager', 'designer', 'architect', 'student', 'teacher', 'doctor', 'nurse', 'lawyer',
      'founder', 'analyst', 'researcher', 'scientist', 'consultant', 'intern', 'lead', 'cto', 'ceo', 'pm',
    ],
    allergy: ['过敏', 'allergic to', 'allergy to', 'allergic'],
    like: [
      '我最喜欢', '我更喜欢', '我很喜欢', '我挺喜欢', '我喜欢', '我爱', '我偏好', '我倾向于', '我倾向', '喜欢用', '更喜欢',
      '最喜欢', '喜欢', '爱吃', '爱喝', '偏爱', 'i really like', 'i prefer', 'i like', 'i love', 'i enjoy', "i'm a fan of",
      'i am a fan of', 'i prefer to', 'i would rather', "i'd rather", 'my favorite', 'my favourite', 'prefer',
    ],
    dislike: [
      '不是很喜欢', '不太喜欢', '不怎么喜欢', '没那么喜欢', '不大喜欢', '不爱', "i don't really like", "i'm not really into",
      'not a fan of', "i don't love", '我不喜欢', '不喜欢', '我讨厌', '讨厌', '我不想', '我不要', '不要给我', '别给我', '我不吃', '不吃', '我不喝', '不喝',
      '我不用', '我受不了', '受不了', '我不再', '不再', '我从不', '从不', '我从来不', '我忌', '忌口',
      "i don't like", 'i do not like', 'i dislike', 'i hate', 'i never', "i can't stand", 'i cannot stand', 'i avoid',
      "i don't eat", "i don't drink", "i don't use", "i don't want", 'i no longer', "i'm not a fan of",
    ],
    habit: [
      '我习惯', '习惯用', '我一般', '我通常', '我平时', '我经常', '我每天', '通常', '一般', 'i usually', 'i always',
      'i often', 'i normally', 'i tend to', 'i typically', 'usually',
    ],
    decision: [
      '我们决定', '我决定', '决定了', '决定用', '决定', '就按', '就这么定', '定了', '选了', '选定', '敲定', '拍板', '最终用',
      '最后用', '就用', '还是用', 'we decided to', 'we decided on', 'we decided', 'i decided to', 'i decided',
      "let's go with", "let's use", "we'll go with", 'we will go with', 'we chose', 'we picked', "we're going with",
      'we are going with', 'we settled on', 'decided to', 'the decision is',
    ],
    task: [
      '第一步', '第二步', '下一步', '接下来', '正在', '我在做', '我在写', '在学', '在做', '在写', '在搞', '在准备', '在研究',
      "i'm learning", 'i am learning', "i'm studying", '待办', '我要', '我得', '我需要', '需要', '提醒我',
      '记得要', 'todo', 'to-do', 'to do:', "i'm working on", 'i am working on', 'working on', 'i need to', 'i have to',
      'i must', "i'm going to", 'i am going to', 'i will', "i'll", 'remind me to', 'next step is', 'first step is',
      'the next step', 'my task is',
    ],
    deadline: [
      '截止日期是', '截止日期', '截止时间', '截止到', '截止', '最后期限', '之前交', '前交', '前完成', '之前完成', 'ddl',
      'the deadline is', 'deadline is', 'deadline', 'due by', 'due on', 'is due', 'due date is', 'due',
    ],
    copulas: [
      '用的是', '用的', '采用', '使用', '选的是', '选用', '是', '用', '为', '叫', '：', ':', '=',
      'is', 'are', 'will be', "'s", 'uses', 'runs on', 'is on',
    ],
    recommendation: [
      '我推荐你', '我推荐', '推荐你', '推荐', '我建议你', '建议你', '我建议', '建议', '你可以试试', '可以试试', '你可以去',
      '可以去', '不妨试试', '不妨', '值得一试', '值得一看', '值得一读', "i'd recommend", 'i would recommend',
      'i recommend', 'i suggest', 'i would suggest', "i'd suggest", 'you should try', 'you should read',
      'you should check out', 'you might like', 'you might enjoy', 'check out', 'my recommendation is',
      'my suggestion is', 'recommend', 'would suit you', 'is a solid pick', 'is a good pick', 'a good fit for you',
      '很适合你', '比较适合你',
    ],
    promise: ['我会提醒你', '我会帮你', '我会在', '我稍后', "i'll remind you", 'i will remind you', "i'll send you", "i'll follow up", 'i will follow up'],
    conclusion: ['总结一下', '总之', '结论是', '综上', 'in summary', 'to summarize', 'in conclusion', 'the conclusion is', 'bottom line'],
    purchase: [
      '想买个', '想买一个', '想买一台', '想买台', '想买辆', '想买', '要买个', '要买一个', '要买', '打算买', '准备买', '买个', '买一个', '买台', '买辆',
      '挑个', '挑一个', '选个', '选一个', '换个', '换一个', '换台', '换辆', '添个', '置办',
      'buy a', 'buy an', 'buy new', 'buying a', 'buying an', 'shopping for a', 'shopping for', 'looking for a', 'looking to buy a', 'replace my', 'get a new',
    ],
  },
  leadingFillers: [
    '去试试', '去吃', '去', '试试', '试一下', '看看', '读读', '尝尝', '用', '使用', '吃', '喝', '看', '听', '玩', '读', '做',
    '穿', '住', '坐', '开', '学', '在', '把', '将', '了', '的', '很', '非常', '特别', '比较', '挺', '真的', '都',
    'using', 'use', 'to use', 'to eat', 'to drink', 'to read', 'to', 'eating', 'eat', 'drinking', 'drink', 'reading',
    'read', 'watching', 'watch', 'listening to', 'going to', 'playing', 'trying', 'checking out', 'having', 'have',
    'the', 'a', 'an', 'really', 'very', 'much', 'definitely', 'out', 'usually', 'always', 'often', 'normally',
    'typically', 'sometimes', '通常', '一般', '经常', '平时', '总是',
  ],
  trailingParticles: [
    '了', '啦', '吧', '呢', '呀', '哦', '哈', '的', '以内', '以下', '以上', '左右', '上下', '之内', '为止', '就行', '就好',
    '即可', '来', '吧', '一下', 'max', 'maximum', 'or so', 'tops', 'ish', 'at most', 'please', 'for now',
    'as well', 'too', 'a lot', 'very much', 'so much',
  ],
  notEntities: [
    'I', "I'm", "I'd", "I'll", "I've", 'My', 'We', "We're", "We'll", 'Our', 'The', 'A', 'An', 'It', "It's", 'This',
    'That', "That's", "Let's", 'Actually', 'Please', 'Thanks', 'Also', 'And', 'But', 'So', 'Hi', 'Hello', 'OK', 'Ok',
    'Yes', 'No', 'Sorry', 'Wait', 'Remember', 'Note', 'You', 'Your', 'If', 'When', 'What', 'Which', 'How', 'Why',
    'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'January', 'February', 'March',
    'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December', 'Every', 'Today',
    'Tomorrow', 'Correction', 'Check', 'Try', 'FYI',
  ],
  abbreviations: ['Dr', 'Mr', 'Mrs', 'Ms', 'St', 'Mt', 'Prof', 'Jr', 'Sr', 'vs', 'etc', 'No', 'approx'],
  nationalities: [
    'American', 'British', 'English', 'Scottish', 'Irish', 'Welsh', 'Canadian', 'Australian', 'Italian', 'French',
    'German', 'Spanish', 'Portuguese', 'Dutch', 'Swiss', 'Austrian', 'Belgian', 'Swedish', 'Norwegian', 'Danish',
    'Finnish', 'Polish', 'Greek', 'Turkish', 'Russian', 'Ukrainian', 'Chinese', 'Japanese', 'Korean', 'Indian',
    'Pakistani', 'Vietnamese', 'Thai', 'Filipino', 'Indonesian', 'Malaysian', 'Singaporean', 'Mexican', 'Brazilian',
    'Argentinian', 'Chilean', 'Colombian', 'Nigerian', 'Kenyan', 'Egyptian', 'Israeli', 'Iranian', 'New Zealander',
    '中国', '美国', '英国', '法国', '德国', '意大利', '西班牙', '日本', '韩国', '印度', '加拿大', '澳大利亚', '瑞士',
    '新加坡', '俄罗斯',
  ],
  organisationSuffixes: [
    '公司', '外企', '国企', '央企', '企业', '工厂', '厂', '银行', '医院', '学校', '大学', '研究所', '研究院', '集团',
    '工作室', '事务所', '律所', '机构', '创业公司', '互联网公司',
  ],
  places: {
    home: ['家', '家里', '家中', '老家'],
    // Municipalities, provincial capitals and the largest cities, as people name them without 市.
    cities: [
      '北京', '上海', '天津', '重庆', '香港', '澳门', '台北', '深圳', '广州', '杭州', '南京', '苏州', '成都', '武汉', '西安',
      '长沙', '郑州', '合肥', '济南', '青岛', '大连', '沈阳', '长春', '哈尔滨', '福州', '厦门', '南昌', '昆明', '贵阳', '南宁',
      '海口', '三亚', '石家庄', '太原', '呼和浩特', '兰州', '西宁', '银川', '乌鲁木齐', '拉萨', '宁波', '无锡', '东莞', '佛山',
      '珠海', '温州', '常州', '南通', '徐州', '烟台',
    ],
    placeSuffixes: ['市', '省', '区', '县'],
  },
};
