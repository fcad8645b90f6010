import type { ClauseCues } from '../../language-pack';

/** Chinese cues of how a turn is read before any rule: connectors, "remember" and emphasis leads, questions, requests. */
export const zhClauses: ClauseCues = {
  connectors: [
    '然后',
    '而且',
    '并且',
    '另外',
    '还有',
    '但是',
    '不过',
    '所以',
    '对了',
    '顺便说一下',
    '顺便',
    '哦',
    '噢',
    '嗯',
    '啊',
    '那',
    '好的',
    '好',
  ],
  remember: ['请记住', '帮我记住', '记住', '记一下', '帮我记一下', '别忘了', '要记得'],
  rememberPreamble: ['这条', '这个', '这件事', '这一点', '你', '请', '一定要', '一定', '必须', '务必', '要', '永远', '绝对', '千万'],
  emphasis: ['永远', '绝对', '以后都', '千万'],
  additive: ['也'],
  question: [],
  questionEndings: ['吗', '呢', '么', '什么', '哪个', '哪家', '哪里', '多少', '几点', '怎么样', '如何', '是不是', '对不对', '没有'],
  request: ['帮我', '请你', '麻烦你', '给我', '你帮', '能不能', '可不可以', '查一下', '看看'],
  abbreviations: [],
  clauseJoins: [],
  newSubjects: [],
  notButIs: [{ not: /不是/u, but: /^(?:而是|是|而)/u }],
  continues: [
    // "我养了一只金毛，叫旺财"
    /^(?:它|他|她)?(?:叫|名叫|名字叫)\S/u,
    // "…，以后都这样"
    /^(?:以后|今后|往后)(?:都这样|都是这样|也这样)?$/u,
  ],
  othersLead: [/^(?:他|她|它)/u],
};
