import { findCue, hasCue } from '../text/cue-matching';
import { identityAttributes } from './catalog';
import { findCatalog, slugify } from '../text/text-values';
import { trimClause, type Clause } from './clauses';
import { alternation, firstMatch } from './patterns';
import type { Finding, RuleContext } from './rule-context';

/**
 * The fact family: statements of what the user's project uses or is ("数据库用 PostgreSQL", "our
 * stack is NestJS", "we use Redis as a cache", "我们用 Kafka"), and "记住 X" where X matched no rule.
 * Tried after every other user rule. Cues: `facts` and `words` of the language packs.
 */
export function statement(c: Clause, rules: RuleContext): Finding[] | Finding | null {
  const { config } = rules;
  for (const [attribute, frames] of Object.entries(config.facts.frames)) {
    const framed = firstMatch(frames, c.body);
    if (framed?.groups?.value) return statementFinding(attribute, rules.clean(framed.groups.value), rules);
  }
  const viaUse = firstMatch(config.facts.useAs, c.body);
  if (viaUse?.groups) {
    const slug = rules.findAttribute(viaUse.groups.attr)?.slug ?? rules.productCategory(viaUse.groups.value);
    if (slug) return statementFinding(slug, rules.valueFor(slug, viaUse.groups.value), rules);
  }
  const named = rules.findAttribute(c.body);
  if (named) {
    const trailing = c.body.slice(named.end).replace(alternation(config.words.genitives, '^\\s*(?:…)?\\s*', 'u'), '');
    // "my position now is …": the adverb sits between the attribute and its copula.
    const now = findCue(trailing, config.words.nowAdverbs);
    const after = now && now.index === 0 ? trimClause(trailing.slice(now.end)) : trailing;
    const copula = findCue(after, config.words.copulas);
    const usedBy = copula !== null && identityAttributes.has(named.slug) && hasCue(copula.cue, config.words.useCopulas);
    if (copula && copula.index === 0 && !usedBy)
      return statementFinding(named.slug, rules.valueFor(named.slug, after.slice(copula.end)), rules);
  }
  const possessive = firstMatch(config.facts.possessive, c.body);
  if (possessive?.groups) {
    const slug = slugify(possessive.groups.attr);
    const products = findCatalog(possessive.groups.value, config.catalog);
    // "our backend is written in Go": the product is the value, not the phrase around it.
    const value = products.length === 1 ? products[0].entry.name : rules.clean(possessive.groups.value);
    if (slug) return statementFinding(slug, value, rules);
  }
  return productsInUse(c, rules);
}

/** "我们项目用的是 NestJS 和 MongoDB": one fact per product, each filling its own category. */
function productsInUse(c: Clause, rules: RuleContext): Finding[] {
  const uses = alternation(rules.config.facts.useVerbs, '(?:…)', 'iu').exec(c.body);
  if (!uses) return [];
  const seen = new Set<string>();
  return rules
    .objectProducts(c.body.slice(uses.index + uses[0].length))
    .filter((p) => !seen.has(p.entry.category) && seen.add(p.entry.category))
    .map((p) => statementFinding(p.entry.category, p.entry.name, rules))
    .filter((f): f is Finding => f !== null);
}

function statementFinding(attribute: string, value: string, rules: RuleContext): Finding | null {
  // "我的手机号是[PHONE]": the masked value is gone, and a placeholder is not worth remembering.
  if (!value || /^\[[A-Z_]+\]$/.test(value)) return null;
  return { kind: rules.kindOf(attribute, 'fact'), attribute, value, confidence: 0.8 };
}

/** "记住 X" where X matched no rule: still worth keeping, as a note in the user's words. */
export function remembered(c: Clause, rules: RuleContext): Finding | null {
  if (!c.remembered) return null;
  const value = rules.clean(c.body);
  return value ? { kind: 'fact', attribute: `note:${slugify(value)}`, value, confidence: 0.9 } : null;
}
