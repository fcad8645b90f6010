import { NOT_HELD } from '../extraction/constraint-values';
import { findCue, type CueMatch } from '../text/cue-matching';
import { slugify } from '../text/text-values';
import type { Clause } from './clauses';
import { firstMatch } from './patterns';
import type { Finding, RuleContext } from './rule-context';

/**
 * The constraint family: standing facts about the user (or a person they name): the diet they keep
 * ("吃素", "I'm vegetarian"), their health conditions ("我有高血压", "I have asthma") and their
 * accessibility needs ("I use a wheelchair", "我是色盲"). Profile facts of their own families —
 * `diet:<name>`, `health:<condition>`, `accessibility:<need>` — which the resolver pins with
 * allergies and the foods a person does not take (`preference:<food>` = `avoid`, the preference
 * family's): a prompt about dinner needs them though it never names them (docs/memory-model.md §3).
 * Tried before the name rule: "我是色盲" is no name. Cues: `constraints` of the language packs.
 *
 * Their polarity too: a statement that such a constraint does not hold — "我可以用青霉素", "对青霉素
 * 不过敏", "I can eat peanuts now", "我现在吃香菜了", "我不吃素了" — is an item of the same key with the
 * value `none` (`NOT_HELD`), which the resolver lands on the constraint it denies (§3).
 */
export function constraint(c: Clause, rules: RuleContext): Finding | null {
  const denied = denial(c, rules);
  if (denied !== undefined) return denied;
  const cues = rules.config.constraints;
  const diet = stated(c.body, findCue(c.body, cues.diets));
  if (diet) return found(`diet:${slugify(diet)}`, diet, 0.85);
  const need = stated(c.body, findCue(c.body, cues.accessibility));
  if (need) return found(`accessibility:${slugify(need)}`, need, 0.85);
  const condition = conditionOf(c.body, rules);
  if (condition) return found(`health:${slugify(condition)}`, condition, 0.85);
  return null;
}

/**
 * A constraint said not to hold, as an item of its key with the value `none`; `null` when the clause
 * negates a diet, need or condition without saying it changed ("我不是素食者", "I'm not vegetarian":
 * nothing to remember, as before); `undefined` when it says neither.
 */
function denial(c: Clause, rules: RuleContext): Finding | null | undefined {
  const cues = rules.config.constraints;
  const notAllergic = firstMatch(cues.notAllergicFrames, c.body);
  if (notAllergic) {
    // "我不过敏了" names no allergen: nothing to deny (and no allergy to "了").
    const allergen = thingOf(notAllergic[1] ?? '', rules);
    return allergen ? denied(`allergy:${slugify(allergen)}`, 'profile') : null;
  }
  const taken = mayTake(c.body, rules) ?? thingOf(firstMatch(cues.takenAgainFrames, c.body)?.[1] ?? '', rules);
  if (taken) return denied(`preference:${slugify(taken)}`, 'preference');
  for (const [family, names] of [
    ['diet', cues.diets],
    ['accessibility', cues.accessibility],
    ['health', cues.conditions],
  ] as const) {
    const cue = findCue(c.body, names);
    if (!cue || !cues.negatedLeads.some((re) => re.test(c.body.slice(0, cue.index).trim()))) continue;
    return findCue(c.body, cues.changeMarkers) ? denied(`${family}:${slugify(cue.cue.trim())}`, 'profile') : null;
  }
  return undefined;
}

function denied(attribute: string, kind: Finding['kind']): Finding {
  return { kind, attribute, value: NOT_HELD, confidence: 0.85, importance: 0.9 };
}

/** "我可以用青霉素", "I can take penicillin now": the thing after a verb of being able to take it, said of the subject. */
function mayTake(body: string, rules: RuleContext): string | null {
  const cues = rules.config.constraints;
  const cue = findCue(body, cues.mayTake);
  if (!cue || !cues.mayTakeLeads.some((re) => re.test(body.slice(0, cue.index).trim()))) return null;
  return thingOf(body.slice(cue.end), rules);
}

/**
 * The thing a constraint is on, as said ("青霉素", "peanuts"): short, no pronoun or article, no product
 * ("我可以用飞书" says what the user may use at work, not what they may take).
 */
function thingOf(raw: string, rules: RuleContext): string | null {
  const cues = rules.config.constraints;
  if (cues.notThings.some((re) => re.test(raw.trim()))) return null;
  let thing = rules.clean(raw);
  for (let end = cues.thingEnds.find((e) => endsWith(thing, e)); end; end = cues.thingEnds.find((e) => endsWith(thing, e))) {
    thing = rules.clean(thing.slice(0, thing.length - end.length));
  }
  if (!thing || cues.notThings.some((re) => re.test(thing)) || rules.productCategory(thing)) return null;
  const latin = /[A-Za-z]/u.test(thing);
  return (latin ? thing.split(/\s+/u).length <= 3 : [...thing].length <= 8) ? thing : null;
}

function endsWith(text: string, end: string): boolean {
  if (!text.toLowerCase().endsWith(end.toLowerCase()) || text.length <= end.length) return false;
  // "now" ends "snow": a Latin word ends only at a word boundary.
  return !/^[A-Za-z]/u.test(end) || /\s$/u.test(text.slice(0, text.length - end.length));
}

function found(attribute: string, value: string, confidence: number): Finding {
  return { kind: 'profile', attribute, value, confidence, importance: 0.9 };
}

/**
 * A diet or need said of its subject: what comes before the cue is at most a being verb, a subject or
 * an adverb ("I'm", "we are strictly", "我一直", "他是"), not a negation ("I'm not vegetarian", "不是
 * 素食") nor a noun it describes ("a vegetarian restaurant", "the deaf community" say nothing of anyone).
 */
function stated(body: string, cue: CueMatch | null): string | null {
  if (!cue) return null;
  const before = body.slice(0, cue.index).trim();
  if (NEGATED.test(before)) return null;
  if (/[A-Za-z]/u.test(cue.cue)) {
    if (!ENGLISH_LEAD.test(before)) return null;
    const after = body.slice(cue.end).trim();
    // "vegetarian restaurant", "deaf community": the cue is an adjective of a noun that follows it.
    if (/^[A-Za-z]/u.test(after) && !/^(?:and|for|since|now|too|as|so|but|because|anyway|in|on)\b/iu.test(after)) return null;
  } else if ([...before].length > 4) return null;
  return cue.cue.trim();
}

const NEGATED = /(?:\bnot\b|n't\b|\bno longer\b|\bnever\b|不是|并不|没有|不再|没)$/iu;

const ENGLISH_LEAD =
  /^(?:(?:i|we|he|she|they|my\s+\w+)\s*)?(?:'m|'re|'s|am|are|is|was|have been|'ve been|has been|went|go|eat|keep|use|uses|need|needs|wear|wears|rely on|relies on|in)?\s*(?:a|an|strictly|fully|now|completely|totally|mostly|also)?\s*$/iu;

/** "我有高血压", "I have asthma": a condition the lexicon names, or whose name ends like one ("…炎", "…itis"). */
function conditionOf(body: string, rules: RuleContext): string | null {
  const cues = rules.config.constraints;
  const framed = firstMatch(cues.conditionFrames, body)?.[1];
  if (!framed) return null;
  const named = rules.clean(framed);
  const known = findCue(named, cues.conditions);
  if (known) return known.cue.trim();
  return cues.conditionEnds.some((end) => named.toLowerCase().endsWith(end.toLowerCase())) ? named : null;
}
