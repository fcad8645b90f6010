// The constraint rules' cues (constraints.rules.ts), a section of every language pack (language-pack.ts).

/**
 * Standing constraints: what the user (or a person they name) cannot or will not eat, their health
 * conditions and their accessibility needs — facts every prompt about food, plans or places needs.
 */
export interface ConstraintCues {
  /** Diets by name ("吃素", "vegetarian", "lactose intolerant"): `diet:<name>`. */
  readonly diets: readonly string[];
  /** Negated verbs of eating or drinking ("不吃", "don't eat"): a dislike said with one is `avoid`, a constraint. */
  readonly avoid: readonly string[];
  /**
   * A verb of eating or drinking before what is disliked ("不喜欢吃辣的菜", "I don't like eating spicy
   * food"): it is `avoid` too. Not the verb of another phrase (吃亏, 吃药, "eating out").
   */
  readonly eating: readonly RegExp[];
  /** Whole frames of avoiding (group 1 the food: "一点辣都不能吃"), read by the dislike rule. */
  readonly avoidFrames: readonly RegExp[];
  /** Frames stating a condition (group 1: "我有高血压", "I have asthma"), kept when `conditions` or `conditionEnds` names it. */
  readonly conditionFrames: readonly RegExp[];
  /** Conditions by name ("糖尿病", "diabetes"). */
  readonly conditions: readonly string[];
  /** How a condition's name ends ("…病", "…炎", "…itis"): the lexicon's general part. */
  readonly conditionEnds: readonly string[];
  /** Accessibility needs by name ("轮椅", "wheelchair", "色盲", "deaf"): `accessibility:<name>`. */
  readonly accessibility: readonly string[];
  /** "可以用", "能吃", "can take": said of a thing a constraint is on, they deny it ("我可以用青霉素"). */
  readonly mayTake: readonly string[];
  /** What may stand before a `mayTake` verb: a subject, adverbs, who said so ("医生说我", "the doctor says I"). */
  readonly mayTakeLeads: readonly RegExp[];
  /** Taking something again or now (group 1 the thing: "我现在吃香菜了"); `takenAgain` opens them, for screening. */
  readonly takenAgainFrames: readonly RegExp[];
  readonly takenAgain: readonly string[];
  /** Not being allergic (group 1 the allergen: "对青霉素不过敏", "no longer allergic to penicillin"). */
  readonly notAllergicFrames: readonly RegExp[];
  /** What stands before a negated diet, need or condition ("我不", "我没有", "I'm not", "I don't use a"). */
  readonly negatedLeads: readonly RegExp[];
  /** What makes such a negation a change ("了", "其实", "anymore"): "我不吃素了" denies, "我不是素食者" says nothing. */
  readonly changeMarkers: readonly string[];
  /** Words after a thing that belong to the statement ("了", "now", "again"), and what is no thing (a pronoun, an article). */
  readonly thingEnds: readonly string[];
  readonly notThings: readonly RegExp[];
}
