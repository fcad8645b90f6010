import type { FactCues } from '../../language-pack';

/** Chinese cues of the fact rules (`rules/facts.rules.ts`): statements of what the user's project uses or is. */
export const zhFacts: FactCues = {
  useAs: [/用\s*(?<value>.+?)\s*(?:做|作为|当|来做)(?<attr>.+)$/u],
  possessive: [/^(?:我的|我们的|咱们的)\s*(?<attr>[^，,]{1,12}?)\s*(?:是|用的是|用|叫|:|：)\s*(?<value>.+)$/u],
  useVerbs: ['用', '使用', '在用', '采用'],
  frames: {
    car: [/(?:开的是|开着|开|换了|买了|提了|新买了|入手了)\s*一?辆\s*(?<value>[^，,。！!？?]+?)\s*(?:了)?$/u],
    shipping_address: [/(?:寄到|送到|发到|邮寄到|快递到)\s*(?<value>[^，,。！!？?]+?)\s*(?:吧|了|去)?$/u],
  },
};
