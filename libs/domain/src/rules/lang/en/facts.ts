import type { FactCues } from '../../language-pack';

/** English cues of the fact rules (`rules/facts.rules.ts`): statements of what the user's project uses or is. */
export const enFacts: FactCues = {
  frames: {
    car: [
      /^(?:i|we)\s+(?:now\s+|still\s+)?drive\s+(?:a|an)\s+(?<value>.+?)$/iu,
      /^(?:i|we)\s+(?:just\s+)?(?:bought|got)\s+(?:a|an)\s+(?:new\s+)?car\s*:?\s*(?:a|an)?\s*(?<value>.+?)$/iu,
    ],
    shipping_address: [
      /\b(?:ship|send|deliver|mail)\b.*?\bto\s+(?:my\s+(?:new\s+)?address,?\s*)?(?<value>\d+[a-z]?\s+[a-z][\w\s.'-]*?\b(?:street|st|road|rd|avenue|ave|lane|ln|drive|dr|way|boulevard|blvd|place|pl|court|ct|square|sq)\b\.?)/iu,
    ],
  },
  useAs: [
    /(?:^|\s)(?:use|are using|'re using|run|run on|are on|'re on|deploy on)\s+(?<value>.+?)\s+(?:as|for)\s+(?:our|the|my|a|an)?\s*(?<attr>.+)$/iu,
  ],
  possessive: [/^(?:my|our)\s+(?<attr>[^,]{1,30}?)\s*(?::|\s(?:is|are|was|will be)\s)\s*(?<value>.+)$/iu],
  useVerbs: [
    String.raw`\buse\b`,
    String.raw`\busing\b`,
    String.raw`\bare on\b`,
    String.raw`'re on\b`,
    String.raw`\bruns? on\b`,
    String.raw`\bswitched to\b`,
  ],
};
