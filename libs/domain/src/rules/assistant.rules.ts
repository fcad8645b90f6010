import { findCue } from '../text/cue-matching';
import { extractProperNouns, extractQuoted, findCatalog, slugify, stripEdges } from '../text/text-values';
import type { Clause } from './clauses';
import { alternation, firstMatch } from './patterns';
import type { Finding, RuleContext } from './rule-context';

/**
 * The assistant family: what the assistant recommended, promised or concluded. Nothing else it says
 * is a fact ("你喜欢 VS Code 吗？" echoes the user). Cues: `assistant` of the language packs.
 */
export function readAssistant(c: Clause, rules: RuleContext): Finding[] {
  const found = recommendation(c, rules) ?? promise(c, rules) ?? conclusion(c, rules);
  return found ? [found] : [];
}

function recommendation(c: Clause, rules: RuleContext): Finding | null {
  const cues = rules.config.assistant;
  const cue = findCue(c.body, cues.recommendation);
  if (!cue) return null;
  const rest = c.body.slice(cue.end);
  const addressee = alternation(cues.addressee, '^\\s*(?:…)\\s*', 'iu');
  const object = stripEdges(rest.replace(addressee, ''), rules.config.words.leadingFillers, []);
  const title = extractQuoted(rest)[0] ?? recommendedThing(object, rules);
  if (!title) return null;
  return {
    kind: 'fact',
    subject: 'assistant',
    attribute: `recommendation:${slugify(title)}`,
    value: title,
    confidence: 0.8,
    importance: 0.6,
    entities: [title],
  };
}

/** The thing itself: a quoted title, a known product, the head after "的", or a proper noun. */
function recommendedThing(object: string, rules: RuleContext): string | null {
  const quoted = extractQuoted(object)[0];
  if (quoted) return quoted;
  const product = findCatalog(object, rules.config.catalog)[0];
  if (product) return product.entry.name;
  const cut = object.split(alternation(rules.config.assistant.reasonBreaks, '[，,。]|…|—|-\\s', 'iu'))[0];
  const head = firstMatch(rules.config.assistant.headNoun, rules.clean(cut));
  if (head) return rules.clean(head[1]);
  const proper = extractProperNouns(cut, rules.config.words)[0];
  if (proper) return proper;
  const value = rules.clean(cut);
  return [...value].length >= 2 ? value : null;
}

function promise(c: Clause, rules: RuleContext): Finding | null {
  const cue = findCue(c.body, rules.config.assistant.promise);
  const value = cue ? rules.clean(c.body.slice(cue.end)) : '';
  if (!value) return null;
  return { kind: 'task', subject: 'assistant', attribute: `promise:${slugify(value)}`, value, confidence: 0.8 };
}

function conclusion(c: Clause, rules: RuleContext): Finding | null {
  const cue = findCue(c.body, rules.config.assistant.conclusion);
  const value = cue ? rules.clean(c.body.slice(cue.end)) : '';
  if (!value) return null;
  return { kind: 'fact', subject: 'assistant', attribute: `conclusion:${slugify(value)}`, value, confidence: 0.75 };
}
