import type { AssistantCues } from '../../language-pack';

/** Chinese cues of the assistant rules (`rules/assistant.rules.ts`): what the assistant recommends, promises, concludes. */
export const zhAssistant: AssistantCues = {
  recommendation: [
    '我推荐你',
    '我推荐',
    '推荐你',
    '推荐',
    '我建议你',
    '建议你',
    '我建议',
    '建议',
    '你可以试试',
    '可以试试',
    '你可以去',
    '可以去',
    '不妨试试',
    '不妨',
    '值得一试',
    '值得一看',
    '值得一读',
    '很适合你',
    '比较适合你',
  ],
  promise: ['我会提醒你', '我会帮你', '我会在', '我稍后'],
  conclusion: ['总结一下', '总之', '结论是', '综上'],
  addressee: ['你', '您'],
  reasonBreaks: ['因为'],
  headNoun: [/的([^的]{2,12})$/u],
};
