/**
 * What the screening filter listens for. Configuration, not code: a new cue is a new string, and
 * bumping `version` lets a reprocess tell old screening results from new ones.
 *
 * Cue matching (see `cue-matching.ts`): cues containing Latin letters match on word boundaries,
 * case-insensitively, with any whitespace between words; Chinese cues match as substrings.
 */

export const SIGNALS = [
  'preference',
  'profile',
  'fact',
  'task',
  'decision',
  'correction',
  'remember',
  'schedule',
  'budget',
  'recommendation',
  'procedure',
  'detail',
] as const;
export type Signal = (typeof SIGNALS)[number];
/** Signals found by cue words; `detail` is found by the shape of the text (`detailPatterns`). */
export type CueSignal = Exclude<Signal, 'detail'>;

export interface ScreeningConfig {
  /** Whole-turn acknowledgements ("嗯嗯", "ok", "thanks!"); a turn made only of these is dropped. */
  readonly chitChat: readonly string[];
  readonly cues: Readonly<Record<CueSignal, readonly string[]>>;
  /**
   * What a one-off request asks about, whose answer is stale tomorrow (weather, opening hours, "nearby"):
   * a user's turn is ephemeral when one of its questions names one ("今天成都下雨吗", "is the Apple store
   * near me open now?"), not when a statement does ("I joined a nearby church"). An assistant's turn
   * is ephemeral when the turn it answers is one (see `screenTurn`).
   */
  readonly ephemeralCues: readonly string[];
  /** Requests that are one-off by themselves, question or not ("帮我查一下…", "translate this"). */
  readonly ephemeralRequests: readonly string[];
  /** First words that make an English sentence a question without its question mark ("what's the traffic like…"). */
  readonly questionLeads: readonly string[];
  /**
   * Shapes of specific information (numbers, dates, names, codes): "她 10 月 18 号生日", "I shoot with
   * a Sony A7 IV" carry no cue word, yet are exactly what is asked later. Regex sources, matched
   * case-sensitively (a capital letter is part of what makes a name).
   */
  readonly detailPatterns: readonly string[];
  /**
   * The assistant restating the user ("好的，你喜欢用 VS Code，我记下了"): details in such a turn are
   * the user's, already screened on the user's turn, so they do not make the assistant's turn worth keeping.
   */
  readonly assistantEchoCues: readonly string[];
  readonly version: string;
}

/**
 * Assistant turns matter for what the assistant recommended, promised or concluded; its other
 * sentences ("你喜欢 VS Code 吗？") echo the user and must not become the user's facts.
 */
export const ASSISTANT_SIGNALS: readonly Signal[] = ['recommendation', 'detail'];

export const defaultScreeningConfig: ScreeningConfig = {
  version: 'screening-6',
  chitChat: [
    // Chinese
    '嗯', '嗯嗯', '嗯呢', '哦', '哦哦', '噢', '好', '好的', '好滴', '好吧', '好嘞', '行', '行吧', '可以', '没问题',
    '收到', '了解', '明白', '知道了', '谢谢', '谢谢你', '多谢', '感谢', '哈哈', '哈哈哈', '呵呵', '嘿嘿', '对',
    '对的', '是的', '没错', '你好', '您好', '早', '早上好', '晚安', '再见', '拜拜', '不客气', '辛苦了', '厉害',
    '牛', '棒', '太棒了', '赞', '是吗', '真的吗', '在吗', '在', '然后呢', '继续',
    // English
    'ok', 'okay', 'k', 'kk', 'yes', 'yeah', 'yep', 'yup', 'no', 'nope', 'sure', 'fine', 'cool', 'nice', 'great',
    'awesome', 'perfect', 'got it', 'i see', 'alright', 'all right', 'thanks', 'thank you', 'thx', 'ty', 'cheers',
    'lol', 'haha', 'hmm', 'hm', 'hi', 'hello', 'hey', 'bye', 'good night', 'good morning', 'sounds good',
    'makes sense', 'you too', 'no problem', 'np', 'continue', 'go on', 'right', 'exactly', 'indeed',
  ],
  cues: {
    preference: [
      '我喜欢', '喜欢', '我爱', '爱吃', '爱喝', '习惯', '倾向', '偏好', '更喜欢', '最喜欢', '不喜欢', '讨厌', '不想',
      '不要', '不吃', '不喝', '不用', '受不了', '过敏', '忌口', '平时', '一般用', '通常',
      'i prefer', 'prefer', 'i like', 'i love', 'i usually', 'i always', 'i never', "i don't like", 'i dislike',
      'i hate', "i can't stand", 'i avoid', 'allergic', 'my favorite', 'my favourite', "i'm a fan of",
      '不耐受', '晕车', '晕机', '怕辣', '不能吃', '吃不了', "i don't eat", "i don't drink", "i don't want", 'vegetarian',
      'vegan', 'pescatarian', "i've always", 'i tried', 'intolerant',
    ],
    profile: [
      '我叫', '我的名字', '叫我', '我是', '我在', '我住', '我来自', '老家', '职位', '工作', '上班', '公司', '技术栈',
      'my name is', 'call me', "i'm", 'i am', 'i work', 'i live', "i'm from", 'i am from', 'my role', 'my job',
      'tech stack', 'our stack',
      // A change of job said without "我是/I am" ("我已经入职了，现在的岗位是Go后端开发工程师").
      '岗位', '入职', '就职', '任职', '新工作', 'my position', 'my title', 'new job', 'started the job', 'started my job',
    ],
    fact: [
      '我的', '我们的', '我们用', '数据库', '编辑器', '框架', '语言', '生日', '用的是', '采用',
      'my', 'our', 'we use', "we're using", 'we are using', 'database', 'editor', 'framework', 'birthday',
      '我爸', '我妈', '爸妈', '父母', '老婆', '老公', '孩子', '儿子', '女儿', '家里', '身高', '体重', '地址', '搬家',
      '买了', '订好', '订了', '报名', '志愿', '考了', 'i bought', 'i booked', 'booked', 'we hired', "i'm", 'i shoot',
      // What the user's team or company is like ("我们团队人少", "we're a small team"): insights rest on these.
      '团队', '人手', '我们公司', 'our team', 'my team', "we're a", 'we are a', 'we only have',
    ],
    task: [
      '第一步', '下一步', '正在', '待办', '截止', '交付', '要做', '得做', '需要', '我要', '我得', '提醒我', '任务',
      'todo', 'to-do', "i'm working on", 'i am working on', 'i need to', 'i have to', 'remind me', 'deadline',
      'due', 'next step', 'first step',
    ],
    decision: [
      '决定', '就按', '选了', '定了', '敲定', '就用', '最终用', '拍板', 'we decided', 'decided', "let's go with",
      "we'll go with", 'we will go with', 'we chose', "we're going with", 'we are going with', 'final decision',
    ],
    correction: [
      '不是', '改成', '改为', '换成', '改到', '提到', '降到', '调整', '变成', '更正', '纠正', '说错', '其实', '忘掉',
      '忘了我', '不再', '作废', '取消', '当我没说', 'actually', 'i meant', 'correction', 'no longer', 'not anymore',
      'forget', 'scratch that', 'changed', 'switched', 'instead',
      '不对', '错了', '改主意', '变卦', '改了', 'make it', 'make that', 'changed my mind', 'change of plan', 'on second thought',
      'set the', 'move the', "it's not", 'it is not',
    ],
    remember: ['记住', '记一下', '别忘了', '记得', '永远', '绝对', '以后都', 'remember', "don't forget", 'never forget', 'note that', 'keep in mind', 'always'],
    schedule: [
      '每周', '每天', '每月', '每个工作日', '例会', '周会', '站会', '开会', '会议', '星期', '周一', '周二', '周三',
      '周四', '周五', '周六', '周日', '点半', '下午', '上午', '晚上',
      'every', 'weekly', 'daily', 'meeting', 'standup', 'stand-up', 'monday', 'tuesday', 'wednesday', 'thursday',
      'friday', 'saturday', 'sunday', 'tomorrow',
    ],
    budget: ['预算', '花费', '价位', '报价', '块钱', '万元', 'budget', 'price range', 'afford', 'spend'],
    // Rules for how the assistant should act ("以后报价先给区间再给明细", "never use emojis"); the extractor
    // decides which are rules (RuleExtractorConfig.procedures), screening only lets them through.
    procedure: [
      '以后', '今后', '从现在起', '从现在开始', '从今以后', '每次', '一律', '别用', '不要用', '表情包', '表情', '代码示例',
      '示例代码', '用中文', '用英文', '回答', '回复', 'always', 'never', 'from now on', 'going forward', "don't use",
      'do not use', 'emoji', 'emojis', 'code examples', 'answer in', 'reply in', 'respond in', 'answers',
    ],
    recommendation: [
      '推荐', '建议你', '建议', '可以试试', '试试', '不妨', '值得一', '我会提醒', '我会帮你', '总结一下', '结论',
      'i recommend', "i'd recommend", 'recommend', 'i suggest', 'you should try', 'you might like', 'check out',
      "i'll remind you", 'i will remind you', 'in summary', 'to summarize', 'my suggestion',
    ],
  },
  ephemeralCues: [
    '天气', '气温', '下雨', '营业时间', '几点开门', '几点关门', '现在几点', '今天几号', '路况', '堵车', '汇率', '股价',
    '附近', '这家店', '新闻',
    'weather', 'temperature', 'forecast', 'opening hours', 'open now', 'what time is it', "what's the time",
    'traffic', 'exchange rate', 'stock price', 'nearby', 'near me', 'news today',
  ],
  // Asking for a translation, not a sentence that mentions one ("高频的再逐个翻译").
  ephemeralRequests: ['帮我看看', '帮我查', '查一下', '搜一下', '帮我翻译', '翻译一下', '翻译成', '怎么翻译', 'translate', 'look up'],
  questionLeads: [
    'what', "what's", 'how', "how's", 'where', "where's", 'when', 'which', 'who', 'is', 'are', 'was', 'were', 'do',
    'does', 'did', 'can', 'could', 'will', 'would', 'should', 'any', 'anything',
  ],
  detailPatterns: [
    String.raw`\d`,
    '[一二两三四五六七八九十百千万]+\\s?(?:个|位|天|晚|夜|次|年|月|周|公斤|斤|块|元|岁|小时|分钟|人|号|点)',
    '(?:明年|今年|去年|下个月|上个月|年底|年初|月底|下周|国庆|春节|周末)',
    String.raw`(?<=\p{L}[\s,]+)\p{Lu}[\p{Ll}\p{Lu}]+`,
    String.raw`\b\p{Lu}{2,}\b`,
  ],
  assistantEchoCues: ['你喜欢', '您喜欢', '你习惯', '您习惯', '你偏好', 'you like', 'you prefer', 'you love', 'your favorite', 'your favourite'],
};
