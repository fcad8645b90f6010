import { findCue } from '../text/cue-matching';
import { LAST_MENTIONED } from '../extraction/extraction.strategy';
import { extractAmount, findCatalog, isMoneyShaped, slugify, trimPunctuation } from '../text/text-values';
import { stripLead, trimClause, type Clause } from './clauses';
import { alternation, firstMatch } from './patterns';
import { valueShapeOf, type Finding, type RuleContext } from './rule-context';

/**
 * The correction family: retractions ("forget that", "当我没说", "忘掉我之前说的喜欢吃榴莲"), corrections
 * ("不是三万，是五万", "set the standup to 9am", "预算提到五万了") and bare new values after a correction
 * lead ("actually it's 50k"). A correction names what it corrects (`named`) or leaves the resolver to
 * find it (`open`, attribute `@last`). Cues: `corrections` of the language packs.
 */
export function retraction(c: Clause, rules: RuleContext, nested = false): Finding | null {
  const { corrections } = rules.config;
  // "不看恐怖片了": the taste "我喜欢看恐怖片" named, given up.
  const given = nested ? undefined : firstMatch(corrections.noLonger, trimPunctuation(c.body))?.groups?.what;
  const liked = given
    ? rules.reread(`${corrections.likeLead}${given}`)?.findings.find((f) => f.kind === 'preference' && f.operation !== 'retract')
    : undefined;
  if (liked)
    return { kind: 'preference', attribute: liked.attribute, value: '', confidence: 0.85, operation: 'retract', correction: 'named' };
  // "forget that", "当我没说": the whole clause points back; "forget that I like durian" names its object.
  const anaphora = findCue(c.body, corrections.retractAnaphora);
  const anaphoric = anaphora !== null && trimPunctuation(c.body.slice(0, anaphora.index) + c.body.slice(anaphora.end)) === '';
  const cue = findCue(c.body, corrections.retract);
  if (!anaphoric && !cue) return null;
  const rest = cue ? c.body.slice(0, cue.index) + ' ' + c.body.slice(cue.end) : c.body;
  const attribute = rules.findAttribute(rest);
  const product = findCatalog(rest, rules.config.catalog)[0];
  const retract = (attr: string, value: string, correction?: Finding['correction'], subject?: string): Finding => ({
    kind: rules.kindOf(attr, 'fact'),
    attribute: attr,
    value,
    confidence: 0.85,
    operation: 'retract',
    ...(correction ? { correction } : {}),
    ...(subject ? { subject } : {}),
  });
  if (attribute) return retract(attribute.slug, product?.entry.category === attribute.slug ? product.entry.name : '');
  if (product) return retract(product.entry.category, product.entry.name);
  if (anaphoric) return retract(LAST_MENTIONED, '');
  const forget = findCue(c.body, corrections.forget);
  const asked = forget !== null && (forget.index === 0 || stripLead(c.body.slice(0, forget.index), corrections.forgetAsk).rest === '');
  if (!forget || !asked || nested) return null; // "我不再吃肉了" names nothing we hold: a new preference, not a retraction.
  // "忘掉我之前说的喜欢吃榴莲": what to forget is itself a statement; read it with the other rules.
  const object = forgetObject(c.body.slice(forget.end), rules);
  if (!object) return null;
  const said = rules.reread(object);
  const named = said ? said.findings.find((f) => f.operation !== 'retract') : undefined;
  if (named && said) {
    return {
      ...retract(named.attribute, '', 'named', named.subject ?? (said.clause.subject !== c.subject ? said.clause.subject : undefined)),
      kind: named.kind,
    };
  }
  // "forget what I said about durian": no rule reads it; the resolver retracts the memory it is most like.
  return retract(LAST_MENTIONED, '', 'open');
}

/** "我之前说的喜欢吃榴莲" → "喜欢吃榴莲", "what I said about durian" → "durian". */
function forgetObject(raw: string, rules: RuleContext): string {
  const { forgetFillers, forgetFillersAfter } = rules.config.corrections;
  let rest = trimClause(raw);
  for (let changed = true; changed;) {
    changed = false;
    const lead = stripLead(rest, forgetFillers);
    if (lead.matched) [rest, changed] = [lead.rest, true];
    const tail = forgetFillersAfter.find((f) => rest.endsWith(f) && rest.length > f.length);
    if (tail) [rest, changed] = [trimClause(rest.slice(0, -tail.length)), true];
  }
  return rest;
}

export function correction(c: Clause, rules: RuleContext): Finding | null {
  const { corrections } = rules.config;
  const notButIs = firstMatch(corrections.notXButY, c.body);
  if (notButIs?.groups) return correctTo(notButIs.groups.pre, notButIs.groups.neu, true, c.body, rules);
  const assign = assignment(c.body, rules);
  if (assign) return correctTo(assign.pre, assign.raw, false, c.body, rules);
  const change = findCue(c.body, corrections.changeVerbs);
  if (!change) return null;
  // "I moved to Lisbon": where the user lives now, read by the identity rules, not a correction of what was said last.
  if (findCue(c.body, rules.config.identity.location)?.index === 0) return null;
  // "from now on book me aisle seats": the "now" of "from now on" says when, not what changed.
  const standing = findCue(c.body, rules.config.procedures.standing);
  if (standing && standing.index <= change.index && change.end <= standing.end) return null;
  const pre = c.body.slice(0, change.index);
  // "now I have a drive for backups" opens with a change word but corrects nothing; "改成9点" does.
  if (trimPunctuation(pre) === '' && findCue(change.cue, corrections.openChangeVerbs)?.end !== change.cue.length) return null;
  return correctTo(pre, c.body.slice(change.end), false, c.body, rules);
}

/** "set the standup to 9am", "move my dentist appointment to Friday": the attribute, then the value. */
function assignment(body: string, rules: RuleContext): { pre: string; raw: string } | null {
  const { corrections } = rules.config;
  const lead = findCue(body, corrections.assignLeads);
  if (!lead || lead.index !== 0) return null;
  const to = alternation(corrections.assignTo, '\\s+(?:…)\\s+', 'iu').exec(body.slice(lead.end));
  if (!to) return null;
  return { pre: body.slice(lead.end, lead.end + to.index), raw: body.slice(lead.end + to.index + to[0].length) };
}

/**
 * A new value for an attribute named before the verb (a known attribute, a product, or the phrase
 * itself: "我的收货地址改成…" → `收货地址`), else implied by the value's shape (an amount is a budget
 * only in a sentence about money). With nothing before the verb ("不对，改成9点", "no, make it 10")
 * it is an open correction: the resolver finds what it answers.
 */
function correctTo(pre: string, raw: string, explicit: boolean, sentence: string, rules: RuleContext): Finding | null {
  const { corrections } = rules.config;
  const amount = extractAmount(raw);
  const money = findCue(sentence, corrections.money) !== null || (amount !== null && isMoneyShaped(amount));
  const named = rules.findAttribute(pre)?.slug ?? rules.productCategory(pre) ?? phraseAttribute(pre, rules);
  const inferred = named ? null : rules.inferAttribute(raw, money);
  const bare = trimPunctuation(pre.replace(rules.firstPerson, '')) === '';
  const attribute = named ?? inferred ?? (explicit || bare ? LAST_MENTIONED : null);
  if (!attribute) return null;
  // "my position now is Go backend engineer": the copula after the verb is not part of the value.
  const said = stripLead(trimClause(raw), corrections.valueCopulas).rest;
  const value = rules.valueFor(attribute, attribute === LAST_MENTIONED ? openValue(said, rules) : said, money);
  if (!value) return null;
  return {
    kind: rules.kindOf(attribute, 'fact'),
    attribute,
    value,
    confidence: 0.85,
    correction: attribute === LAST_MENTIONED ? 'open' : 'named',
  };
}

/** "我的收货地址", "把服务器时间", "my meeting room": a noun phrase that names what changes. */
function phraseAttribute(pre: string, rules: RuleContext): string | null {
  const { corrections, words } = rules.config;
  const leads = alternation(corrections.phraseLeads, '^(?:…)\\s*', 'iu');
  let phrase = trimClause(pre);
  for (let lead = leads.exec(phrase); lead; lead = leads.exec(phrase)) phrase = phrase.slice(lead[0].length);
  phrase = rules.clean(phrase.replace(alternation(words.genitives, '(?:…)$', 'u'), ''));
  // "周报以后改成纯文字": "from now on" says when the change holds, not what changes.
  phrase = rules.clean(phrase.replace(alternation(rules.config.procedures.standing, '\\s*(?:…)$', 'iu'), ''));
  if (!phrase || rules.firstPerson.test(phrase) || findCue(phrase, words.nowAdverbs) || findCue(phrase, corrections.notInAttribute))
    return null;
  const pronoun = alternation(corrections.pronouns, '^(?:…)$', 'iu');
  return corrections.attributePhrases.some((re) => re.test(phrase)) && !pronoun.test(phrase) ? slugify(phrase) : null;
}

/** "我要低卡方案" → "低卡方案", "I want a low-calorie plan" → "low-calorie plan". */
function openValue(raw: string, rules: RuleContext): string {
  const { corrections } = rules.config;
  const rest = stripLead(trimClause(raw), corrections.openValueFillers).rest;
  return rest.replace(alternation(corrections.valueArticles, '^(?:…)\\s+', 'iu'), '');
}

/** "actually it's 50k", "我改主意了，…": nothing else matched, so the clause is a bare new value. */
export function anaphoricCorrection(c: Clause, rules: RuleContext): Finding | null {
  if (!c.corrected) return null;
  const raw = c.body.replace(alternation(rules.config.corrections.bareValueLeads, '^(?:…)\\s*', 'iu'), '');
  const found = correctTo('', raw, true, c.body, rules);
  // "no, I haven't": words after a lead that is as often an answer correct nothing; "no, 10" does.
  if (!found || c.retargets || found.attribute !== LAST_MENTIONED || valueShapeOf(found.value) !== 'text') return found;
  const { correction: _open, ...plain } = found;
  return plain;
}
