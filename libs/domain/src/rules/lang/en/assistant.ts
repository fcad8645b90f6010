import type { AssistantCues } from '../../language-pack';

/** English cues of the assistant rules (`rules/assistant.rules.ts`): what the assistant recommends, promises, concludes. */
export const enAssistant: AssistantCues = {
  recommendation: [
    "i'd recommend",
    'i would recommend',
    'i recommend',
    'i suggest',
    'i would suggest',
    "i'd suggest",
    'you should try',
    'you should read',
    'you should check out',
    'you might like',
    'you might enjoy',
    'check out',
    'my recommendation is',
    'my suggestion is',
    'recommend',
    'would suit you',
    'is a solid pick',
    'is a good pick',
    'a good fit for you',
  ],
  promise: ["i'll remind you", 'i will remind you', "i'll send you", "i'll follow up", 'i will follow up'],
  conclusion: ['in summary', 'to summarize', 'in conclusion', 'the conclusion is', 'bottom line'],
  addressee: ['you'],
  reasonBreaks: ['because', 'since'],
  headNoun: [],
};
