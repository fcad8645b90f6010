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
 */
export function constraint(c: Clause, rules: RuleContext): Finding | null {
  const cues = rules.config.constraints;
  const diet = stated(c.body, findCue(c.body, cues.diets));
  if (diet) return found(`diet:${slugify(diet)}`, diet, 0.85);
  const need = stated(c.body, findCue(c.body, cues.accessibility));
  if (need) return found(`accessibility:${slugify(need)}`, need, 0.85);
  const condition = conditionOf(c.body, rules);
  if (condition) return found(`health:${slugify(condition)}`, condition, 0.85);
  return null;
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
