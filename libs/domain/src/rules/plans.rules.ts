import { findCue } from '../text/cue-matching';
import { LAST_MENTIONED } from '../extraction/extraction.strategy';
import { extractAmount, extractDate, extractRecurrence, slugify, stripEdges } from '../text/text-values';
import { trimClause, type Clause } from './clauses';
import { alternation } from './patterns';
import type { Finding, RuleContext } from './rule-context';
import type { RuleExtractorConfig } from './rule-extractor.config';

/**
 * The plan family: budgets, deadlines, schedules, decisions and tasks, and what a budget is for
 * (`purchaseOf`). Values have recognisable shapes (amounts, dates, recurrences). Cues: `plans` of
 * the language packs.
 */
export function budget(c: Clause, rules: RuleContext): Finding | null {
  const named = rules.findAttribute(c.body);
  if (named?.slug !== 'budget') return null;
  const amount = extractAmount(c.body.slice(named.end)) ?? extractAmount(c.body);
  if (!amount) return null;
  return { kind: 'fact', attribute: 'budget', value: amount, confidence: 0.85 };
}

export function deadline(c: Clause, rules: RuleContext): Finding | null {
  const { plans, words } = rules.config;
  const cue = findCue(c.body, plans.deadline);
  if (!cue) return dueBy(c, rules);
  const date = extractDate(c.body.slice(cue.end)) ?? extractDate(c.body);
  const value = date ?? rules.clean(c.body.slice(cue.end));
  if (!value) return null;
  const scope = rules.clean(
    c.body
      .slice(0, cue.index)
      .replace(date ?? '\u0000', '')
      .replace(alternation(words.genitives, '(?:…)\\s*$', 'u'), '')
      .replace(alternation(plans.deadlineScopeLeads, '^(?:…)\\s*', 'iu'), ''),
  );
  const generic = !scope || alternation(plans.genericScopes, '^(?:…)$', 'iu').test(scope);
  const attribute = generic ? 'deadline' : `deadline:${slugify(scope)}`;
  return { kind: 'task', attribute, value, confidence: 0.85, importance: 0.8 };
}

/** "下周三之前要把报告交给老板", "send the report by Friday": a dated task without the word deadline. */
function dueBy(c: Clause, rules: RuleContext): Finding | null {
  const { plans } = rules.config;
  const date = extractDate(c.body);
  if (!date) return null;
  const at = c.body.indexOf(date);
  const afterDate = alternation(plans.dueAfterDate, '^\\s*(?:…)', 'u');
  const beforeDate = alternation(plans.dueBeforeDate, '\\b(?:…)\\s*$', 'iu');
  const before = afterDate.test(c.body.slice(at + date.length));
  const by = beforeDate.test(c.body.slice(0, at));
  if (!before && !by) return null;
  const what = rules.clean(
    (c.body.slice(0, at).replace(beforeDate, '') + ' ' + c.body.slice(at + date.length).replace(afterDate, ''))
      .replace(rules.firstPerson, '')
      .replace(alternation(plans.dueVerbs, '^(?:…)\\s*', 'iu'), ''),
  );
  if (!what) return null;
  return { kind: 'task', attribute: `deadline:${slugify(what)}`, value: date, confidence: 0.8, importance: 0.8 };
}

export function schedule(c: Clause, rules: RuleContext): Finding | null {
  const { config } = rules;
  const recurrence = extractRecurrence(c.body);
  if (!recurrence) return null;
  const named = rules.findAttribute(c.body);
  // "actually, make that every Thursday": a correction of whatever schedule was said last.
  if (c.corrected && !named) return { kind: 'fact', attribute: LAST_MENTIONED, value: recurrence.value, confidence: 0.85 };
  const event = stripEdges(c.body.replace(recurrence.value, ' ').replace(rules.firstPerson, ''), config.words.leadingFillers, [
    ...config.words.trailingParticles,
    ...config.plans.scheduleTrailers,
  ]);
  const attribute =
    named && config.attributeKinds[named.slug] === 'fact' && /meeting|standup/.test(named.slug)
      ? named.slug
      : event
        ? `schedule:${slugify(event)}`
        : 'schedule';
  return { kind: 'fact', attribute, value: recurrence.value, confidence: 0.8 };
}

export function decision(c: Clause, rules: RuleContext): Finding | null {
  const cue = findCue(c.body, rules.config.plans.decision);
  if (!cue) return null;
  const rest = c.body.slice(cue.end);
  const product = rules.objectProducts(rest)[0];
  const named = rules.findAttribute(rest);
  if (product) {
    const attribute = named?.slug ?? product.entry.category;
    return { kind: 'decision', attribute, value: product.entry.name, confidence: 0.85 };
  }
  const value = rules.clean(rest);
  // "好，就这么定了", "就按这个方案来": what was just proposed is decided (said after another party's
  // turn, the rule extractor takes that turn for the decision); on its own, "就这么定了" decides nothing.
  const bare = (value.match(/[\p{L}\p{N}]/gu) ?? []).length < 2 || rules.isNotEntity(value);
  const accepts = bare || alternation(rules.config.plans.acceptance, '(?:…)', 'iu').test(value);
  if (bare) return { kind: 'decision', attribute: 'decision', value: '', confidence: 0.8, accepts };
  return { kind: 'decision', attribute: `decision:${slugify(value)}`, value, confidence: 0.8, ...(accepts ? { accepts } : {}) };
}

export function task(c: Clause, rules: RuleContext): Finding | null {
  const cue = findCue(c.body, rules.config.plans.task);
  if (!cue) return null;
  const value = rules.clean(c.body.slice(cue.end));
  if (!value || [...value].length < 2) return null;
  return { kind: 'task', attribute: `task:${slugify(value)}`, value, confidence: 0.75 };
}

/** What the turn says is being bought: the words after a purchase cue, up to the clause's end. */
export function purchaseOf(text: string, config: RuleExtractorConfig): string | null {
  const { plans } = config;
  const cue = findCue(text, plans.purchase);
  if (!cue) return null;
  const rest = text.slice(cue.end).split(alternation(plans.purchaseEnds, '[，,。.;；!！?？、]|…', 'iu'))[0];
  const thing = trimClause(rest)
    .replace(alternation(plans.purchaseArticles, '^(?:…)\\s*', 'iu'), '')
    .replace(alternation(plans.purchaseParticles, '(?:…)$', 'u'), '')
    .trim()
    .toLowerCase();
  // A name, not a sentence: at most 12 characters of Chinese or 4 words.
  if (!thing || thing.length > 24 || thing.split(/\s+/).length > 4 || (/\p{Script=Han}/u.test(thing) && thing.length > 12)) return null;
  return thing;
}
