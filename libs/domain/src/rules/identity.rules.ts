import { findCue } from '../text/cue-matching';
import { findCatalog, slugify, trimPunctuation } from '../text/text-values';
import type { Clause } from './clauses';
import { alternation, firstMatch } from './patterns';
import type { Finding, RuleContext } from './rule-context';

/**
 * The identity family: who the user is (name, nationality, employer, role, where they live and come
 * from) and what they are allergic to. Profile facts. Cues: `identity` of the language packs.
 */
export function allergy(c: Clause, rules: RuleContext): Finding | null {
  const { identity } = rules.config;
  const framed = firstMatch(identity.allergyFrames, c.body);
  const cue = framed ? null : findCue(c.body, identity.allergy);
  // "我不过敏了": a negated allergy is no allergy (the constraint rules read what one denies).
  if (cue && rules.config.constraints.negatedLeads.some((re) => re.test(c.body.slice(0, cue.index).trim()))) return null;
  const raw = framed?.[1] ?? (cue ? c.body.slice(cue.end) : null);
  const value = raw ? rules.clean(raw) : '';
  if (!value) return null;
  return { kind: 'profile', attribute: `allergy:${slugify(value)}`, value, confidence: 0.9, importance: 0.95 };
}

export function name(c: Clause, rules: RuleContext): Finding | null {
  const { identity } = rules.config;
  const family = familyName(c, rules);
  if (family) return family;
  const cue = findCue(c.body, identity.name);
  if (cue) {
    const name = personName(c.body.slice(cue.end), rules);
    if (name) return nameFinding(name, 0.9);
  }
  // "我是老周" / "I'm Alex": a bare name, said without a cue, is likelier a name than anything else.
  const bare = firstMatch(identity.bareNames, c.body)?.[1];
  if (bare && !identity.notBareNames.some((re) => re.test(bare)) && !rules.hasRoleSuffix(bare)) return nameFinding(bare, 0.6);
  const word = firstMatch(identity.bareWords, c.body)?.[1];
  const nationality = nationalityOf(c.body, word, rules);
  if (nationality) return { kind: 'profile', attribute: 'nationality', value: nationality, confidence: 0.85, entities: [nationality] };
  if (word && !rules.isNotEntity(word) && findCatalog(word, rules.config.catalog).length === 0) return nameFinding(word, 0.7);
  return null;
}

/** "I'm Italian", "我是意大利人": who they are by nationality, which is never their name. */
function nationalityOf(body: string, bareWord: string | undefined, rules: RuleContext): string | null {
  const { identity } = rules.config;
  const known = (word: string) => identity.nationalities.find((n) => n.toLowerCase() === word.toLowerCase()) ?? null;
  if (bareWord) return known(bareWord);
  const framed = firstMatch(identity.nationalityFrames, body);
  return framed ? known(framed[1]) : null;
}

/**
 * The names of the user's people and animals, a fact of the user's family (`family:<who>`, pinned
 * like the rest of the profile): "我女儿叫小美", "my daughter's name is Lily" (the clause's subject is
 * the relation), "We adopted a kitten named Miso", "我养了一只金毛，叫旺财" (a companion named by its kind).
 */
function familyName(c: Clause, rules: RuleContext): Finding | null {
  const { identity } = rules.config;
  const companion = firstMatch(identity.namedCompanions, c.body)?.groups;
  // "我们公司叫…" names an attribute (the statement rules read it), "my favourite band is called …" a taste.
  const kind = companion?.kind ? rules.clean(companion.kind) : '';
  const companionKind = kind && !rules.findAttribute(kind) && !alternation(rules.config.preferences.favourite, '(?:…)', 'iu').test(kind);
  if (companionKind && companion?.name && !rules.isNotEntity(companion.name)) return familyFinding(kind, companion.name);
  if (!(c.subject in identity.relations)) return null;
  const cue = findCue(c.body, identity.namedAs);
  const named = cue && cue.index === 0 ? personName(c.body.slice(cue.end), rules) : null;
  return named ? familyFinding(c.subject, named) : null;
}

function familyFinding(who: string, name: string): Finding | null {
  const slug = slugify(who);
  if (!slug) return null;
  return { kind: 'profile', subject: 'user', attribute: `family:${slug}`, value: name, confidence: 0.85, entities: [name], keys: [who] };
}

function nameFinding(name: string, confidence: number): Finding {
  return { kind: 'profile', attribute: 'name', value: name, confidence, entities: [name] };
}

/** A name right after its cue: a short Han run, or up to three capitalised words. */
function personName(rest: string, rules: RuleContext): string | null {
  const shaped = firstMatch(rules.config.identity.nameShapes, trimPunctuation(rest));
  return shaped && !rules.isNotEntity(shaped[1]) ? shaped[1] : null;
}

export function profile(c: Clause, rules: RuleContext): Finding[] | null {
  const { identity } = rules.config;
  const workplace = firstMatch(identity.workplaceFrames, c.body);
  if (workplace) {
    const where = rules.clean(workplace[1]);
    if (identity.places.home.includes(where)) return null; // works from home: the episode keeps it
    const role = workplace.groups?.verb ? identity.workplaceRoles[workplace.groups.verb] : undefined;
    return [profileFinding(isPlace(where, rules) ? 'location' : 'employer', where), ...(role ? [profileFinding('role', role)] : [])];
  }
  const worksAs = firstMatch(identity.worksAsFrames, c.body);
  if (worksAs?.groups && findCue(worksAs.groups.org, identity.organisationSuffixes)?.end === worksAs.groups.org.length) {
    return [profileFinding('employer', rules.clean(worksAs.groups.org)), profileFinding('role', rules.clean(worksAs.groups.role))].filter(
      (f) => f.value,
    );
  }
  const employer = findCue(c.body, identity.employer);
  if (employer) {
    const rest = c.body.slice(employer.end);
    const company = rules.clean(rest.split(alternation(identity.employerEnds, '…|[，,]', 'iu'))[0]);
    const role = firstMatch(identity.employerRole, rest);
    // An employer is an organisation by name: "I joined Stripe", not "I joined a gym" or "a nearby church".
    if (!isOrganisation(company, rules)) return null;
    const found = [profileFinding('employer', company)];
    if (role && rules.hasRoleSuffix(role[1])) found.push(profileFinding('role', rules.clean(role[1])));
    return found.filter((f) => f.value);
  }
  const opener = findCue(c.body, identity.roleOpeners);
  const role = findCue(c.body, identity.role) ?? (opener?.index === 0 ? opener : null);
  if (role) {
    const rest = c.body.slice(role.end).replace(alternation(identity.roleArticles, '^\\s*(?:…)', 'iu'), '');
    const [title, where] = rest.split(alternation(identity.roleEmployerJoins, '…', 'iu'));
    if (title && rules.hasRoleSuffix(title)) {
      const found = [profileFinding('role', rules.clean(title))];
      if (where) found.push(profileFinding('employer', rules.clean(where.split(/[，,]/u)[0])));
      return found.filter((f) => f.value);
    }
  }
  const presence = findCue(c.body, identity.presence);
  const where = presence ? rules.clean(c.body.slice(presence.end).split(alternation(identity.placeEnds, '[，,]|…', 'iu'))[0]) : '';
  if (where && firstMatch(identity.presenceShape, where)) return [profileFinding('current_location', where)];
  for (const slot of ['location', 'hometown'] as const) {
    const cue = findCue(c.body, identity[slot]);
    const value = cue ? rules.clean(c.body.slice(cue.end).split(alternation(identity.placeEnds, '[，,]|…', 'iu'))[0]) : '';
    if (value) return [profileFinding(slot, value)];
  }
  return null;
}

/** A name ("Stripe", "3M", "字节跳动") or a kind of organisation ("一家外企"); not "a gym", "the team". */
function isOrganisation(value: string, rules: RuleContext): boolean {
  const { identity } = rules.config;
  return identity.organisationNames.some((re) => re.test(value)) || findCue(value, identity.organisationSuffixes)?.end === value.length;
}

/** "北京", "苏州市", "浦东新区", but not "深圳市腾讯计算机系统有限公司" (an organisation by its end). */
function isPlace(value: string, rules: RuleContext): boolean {
  const { organisationSuffixes, places } = rules.config.identity;
  if (findCue(value, organisationSuffixes)?.end === value.length) return false;
  return places.cities.includes(value) || places.placeSuffixes.some((suffix) => value.endsWith(suffix));
}

function profileFinding(attribute: string, value: string): Finding {
  const named = attribute !== 'role' && value ? [value] : [];
  return { kind: 'profile', attribute, value, confidence: 0.85, entities: named };
}
