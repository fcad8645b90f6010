import type { ConstraintCues } from '../../language-pack';

/** Chinese cues of the constraint rules (`rules/constraints.rules.ts`): diets, foods avoided, conditions, accessibility. */
export const zhConstraints: ConstraintCues = {
  diets: ['吃素', '素食', '全素', '清真', '无麸质', '乳糖不耐受', '生酮饮食', '低盐饮食', '低糖饮食'],
  avoid: ['不吃', '不喝', '不能吃', '不能喝', '吃不了', '喝不了', '忌口'],
  // Two characters at least after the verb, a particle not counted: 吃亏, 吃药, 吃苦 are words of their own.
  eating: [/^(?:吃|喝)(?=\p{Script=Han}{2})(?!\p{Script=Han}(?:了|啦|呀|啊|的)?$)/u],
  avoidFrames: [/一(?:点|口)(.{1,6}?)都不(?:能|敢)?(?:吃|喝|碰)/u],
  conditionFrames: [/^(?:我)?(?:有|患有|得了|确诊了?|查出了?)(.{1,10}?)(?:[，,。]|$)/u],
  conditions: ['高血压', '低血压', '糖尿病', '哮喘', '痛风', '心脏病', '抑郁症', '焦虑症', '偏头痛', '癫痫', '贫血', '高血脂', '胃溃疡'],
  conditionEnds: ['病', '症', '炎', '癌', '综合征', '综合症'],
  accessibility: ['坐轮椅', '轮椅', '色盲', '色弱', '听障', '视障', '弱视', '耳聋', '失聪', '助听器', '拐杖'],
  mayTake: ['可以用', '能用', '可以吃', '能吃', '可以喝', '能喝', '可以服用', '能服用', '可以碰', '能碰', '吃得了', '喝得了', '用得了'],
  mayTakeLeads: [/^(?:.{1,4}说)?(?:我们?)?(?:现在|已经|其实|又|也|都|完全|终于|目前|还是)*$/u],
  takenAgainFrames: [/^(?:我们?)?(?:现在|又|重新|已经)(?:开始)?(?:吃|喝|用)(.{1,8}?)了?$/u, /^(?:我们?)?开始(?:吃|喝|用)(.{1,8}?)了$/u],
  takenAgain: ['现在吃', '现在喝', '现在用', '又吃', '又喝', '又用', '重新吃', '重新喝', '开始吃', '开始喝'],
  notAllergicFrames: [
    /对(.{1,10}?)(?:并|其实|根本|已经)?(?:不|不再|没有?)过敏/u,
    /(?:不再|不)对(.{1,10}?)过敏/u,
    // "我不过敏了": no allergen named (no group): nothing to read.
    /^(?:我们?)?(?:现在|已经|其实)?(?:不再|不|没有?)过敏了?$/u,
  ],
  negatedLeads: [/^(?:我们?)?(?:现在|已经|其实|早就|也)?(?:不再|不|没有|没|并不|不是)(?:用|坐|吃|戴|需要|再)?$/u],
  changeMarkers: ['了', '不再', '其实', '已经', '现在', '早就'],
  thingEnds: ['了', '啦', '的', '吧'],
  notThings: [/^(?:这|那|你|他|她|它|什么|一些|一点|多少|东西)/u],
};
