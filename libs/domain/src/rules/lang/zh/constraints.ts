import type { ConstraintCues } from '../../language-pack';

/** Chinese cues of the constraint rules (`rules/constraints.rules.ts`): diets, foods avoided, conditions, accessibility. */
export const zhConstraints: ConstraintCues = {
  diets: ['吃素', '素食', '全素', '清真', '无麸质', '乳糖不耐受', '生酮饮食', '低盐饮食', '低糖饮食'],
  avoid: ['不吃', '不喝', '不能吃', '不能喝', '吃不了', '喝不了', '忌口'],
  avoidFrames: [/一(?:点|口)(.{1,6}?)都不(?:能|敢)?(?:吃|喝|碰)/u],
  conditionFrames: [/^(?:我)?(?:有|患有|得了|确诊了?|查出了?)(.{1,10}?)(?:[，,。]|$)/u],
  conditions: ['高血压', '低血压', '糖尿病', '哮喘', '痛风', '心脏病', '抑郁症', '焦虑症', '偏头痛', '癫痫', '贫血', '高血脂', '胃溃疡'],
  conditionEnds: ['病', '症', '炎', '癌', '综合征', '综合症'],
  accessibility: ['坐轮椅', '轮椅', '色盲', '色弱', '听障', '视障', '弱视', '耳聋', '失聪', '助听器', '拐杖'],
};
