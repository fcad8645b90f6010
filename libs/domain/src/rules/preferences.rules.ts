import { findCue } from '../text/cue-matching';
import { findCatalog, slugify } from '../text/text-values';
import type { Clause } from './clauses';
import { alternation, firstMatch } from './patterns';
import type { Finding, RuleContext } from './rule-context';

/**
 * The preference family: likes, dislikes and habits ("我不吃辣", "I prefer VS Code", "my favorite
 * editor is Zed"). A known product names a single-valued attribute (editor, OS); anything else is
 * `preference:<object>`. Cues: `preferences` of the language packs.
 */
export function dislike(c: Clause, rules: RuleContext): Finding | null {
  const { constraints, preferences } = rules.config;
  const framed = firstMatch(constraints.avoidFrames, c.body)?.[1];
  const cue = framed ? null : (findCue(c.body, preferences.dislike) ?? findCue(c.body, constraints.avoid));
  const object = framed ? rules.clean(framed) : cue ? rules.clean(c.body.slice(cue.end)) : '';
  if (!object) return null;
  // "不吃香菜", "I never drink coffee after 3pm", "一点辣都不能吃": what a person does not take (a verb of
  // eating or drinking within the cue) is a standing constraint on every meal (`avoid`, pinned by the
  // resolver), not only a taste.
  const eating = cue ? findCue(c.body.slice(cue.index), constraints.avoid) : null;
  // "不喜欢吃辣的菜": a verb of eating right after the cue says what is disliked is food.
  const eats = cue !== null && firstMatch(constraints.eating, c.body.slice(cue.end).trimStart()) !== null;
  const avoids = framed !== undefined || eats || (eating !== null && cue !== null && eating.index <= cue.end - cue.index);
  return {
    kind: 'preference',
    attribute: `preference:${objectKey(object, rules)}`,
    value: avoids ? 'avoid' : 'dislike',
    confidence: 0.8,
    importance: avoids ? 0.8 : 0.65,
  };
}

export function like(c: Clause, rules: RuleContext): Finding | null {
  const cues = rules.config.preferences;
  const first = firstMatch(cues.favouriteFirst, c.body)?.groups;
  if (first?.value) return favouriteFirst(first.value, (first.what || first.what2 || '').trim(), rules);
  // "以后给我订靠过道的座位吧": a taste said as a standing request, and a change of any taste on its subject.
  const requested = firstMatch(cues.standingRequests, c.body)?.groups?.object;
  if (requested && rules.clean(requested))
    return {
      kind: 'preference',
      attribute: `preference:${objectKey(rules.clean(requested), rules)}`,
      value: 'like',
      confidence: 0.8,
      correction: 'named',
    };
  const framed = firstMatch(cues.habitFrames, c.body)?.groups?.object;
  if (framed && rules.clean(framed))
    return {
      kind: 'preference',
      attribute: `preference:${objectKey(rules.clean(framed), rules)}`,
      value: 'habit',
      confidence: 0.75,
      keys: cues.habitKeys,
    };
  const cue = findCue(c.body, cues.like) ?? findCue(c.body, cues.habit);
  if (!cue) return null;
  const rest = c.body.slice(cue.end);
  const favourite = alternation(cues.favouriteCopulas, '^\\s*(?<what>.{1,20}?)\\s*(?:…)\\s*(?<value>.+)$', 'iu').exec(rest);
  if (alternation(cues.favourite, '(?:…)', 'iu').test(cue.cue) && favourite?.groups) {
    const slug = rules.findAttribute(favourite.groups.what)?.slug ?? `favorite:${slugify(favourite.groups.what)}`;
    return { kind: 'preference', attribute: slug, value: rules.valueFor(slug, favourite.groups.value), confidence: 0.85 };
  }
  const object = rules.clean(rest);
  if (!object) return null;
  const product = findCatalog(object, rules.config.catalog)[0];
  if (product && product.index === 0) {
    // Tools one uses one of (editor, OS) are single-valued; a favourite language is kept apart
    // from the team's language, which is a fact about the project, not a taste.
    const category = product.entry.category;
    const attribute = rules.config.attributeKinds[category] === 'preference' ? category : `preferred_${category}`;
    return { kind: 'preference', attribute, value: product.entry.name, confidence: 0.85 };
  }
  const habit = cues.habit.some((h) => h.toLowerCase() === cue.cue.toLowerCase());
  return {
    kind: 'preference',
    attribute: `preference:${objectKey(object, rules)}`,
    value: habit ? 'habit' : 'like',
    confidence: 0.75,
    ...(habit ? { keys: cues.habitKeys } : {}),
  };
}

/**
 * "乌龙茶是我最爱的茶", "Neovim is my editor of choice": a known attribute named as the kind ("editor")
 * takes the value, as "my favourite editor is Neovim" does; else it is a liking of the thing itself,
 * keyed like "我喜欢乌龙茶", so the two are one memory.
 */
function favouriteFirst(value: string, what: string, rules: RuleContext): Finding | null {
  const thing = rules.clean(value);
  // "这是我最喜欢的一家店", "that is my favourite": a pronoun names nothing to remember by.
  if (!thing || /^(?:这|那|它|这个|那个|这些|那些|this|that|it|these|those)$/iu.test(thing)) return null;
  const slug = what ? rules.findAttribute(what)?.slug : undefined;
  if (slug) return { kind: 'preference', attribute: slug, value: rules.valueFor(slug, thing), confidence: 0.85 };
  const product = findCatalog(thing, rules.config.catalog)[0];
  if (product && product.index === 0 && rules.config.attributeKinds[product.entry.category] === 'preference') {
    return { kind: 'preference', attribute: product.entry.category, value: product.entry.name, confidence: 0.85 };
  }
  return { kind: 'preference', attribute: `preference:${objectKey(thing, rules)}`, value: 'like', confidence: 0.8 };
}

/**
 * The key part of a preference's object: "coffee after 3pm" and "coffee" are both about coffee,
 * so a later "I drink coffee again" lands on the same memory.
 */
function objectKey(object: string, rules: RuleContext): string {
  const head = object.split(alternation(rules.config.preferences.objectEnds, '…', 'iu'))[0];
  const product = findCatalog(head, rules.config.catalog)[0];
  return slugify(product ? product.entry.name : rules.clean(head)) || slugify(object);
}
