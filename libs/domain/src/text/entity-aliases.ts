/**
 * Entity normalisation: "甲骨文数据库", "甲骨文" and "Oracle" are one entity. An alias table maps
 * every surface form to one canonical name. The search projection adds the canonical names of
 * the entities a memory mentions to its terms; recall adds them to the query. So a Chinese
 * statement is found by an English question and the other way round, without either side being
 * rewritten.
 *
 * Two sources, both deterministic:
 * - configured: built-in defaults plus `ENGRAM_ENTITY_ALIASES` (canonical → aliases);
 * - learned: a name glossed by another in parentheses — "甲骨文（Oracle）", "Amazon Web Services
 *   (AWS)", "Postgres (aka PostgreSQL)" — in at least `minSeen` distinct memories of the user.
 *   One gloss can be a one-off ("他们（运维组）"); the same gloss twice is how people name a thing.
 */

/** Canonical name → its other names. */
export type AliasEntries = Readonly<Record<string, readonly string[]>>;

export const DEFAULT_ENTITY_ALIASES: AliasEntries = {
  Oracle: ['甲骨文', '甲骨文数据库', '甲骨文公司', 'Oracle Database', 'Oracle DB'],
  Microsoft: ['微软', '微软公司'],
  Azure: ['微软云', 'Microsoft Azure'],
  Google: ['谷歌', '谷歌公司'],
  'Google Cloud': ['谷歌云', 'GCP', 'Google Cloud Platform'],
  Amazon: ['亚马逊', '亚马逊公司'],
  AWS: ['亚马逊云', '亚马逊云服务', '亚马逊云科技', 'Amazon Web Services'],
  'Alibaba Cloud': ['阿里云', 'Aliyun'],
  Alibaba: ['阿里巴巴'],
  'Tencent Cloud': ['腾讯云'],
  Tencent: ['腾讯'],
  'Huawei Cloud': ['华为云'],
  Huawei: ['华为'],
  ByteDance: ['字节跳动'],
  Apple: ['苹果公司'],
  PostgreSQL: ['Postgres', 'PostgreSQL数据库'],
  MongoDB: ['Mongo'],
  Kubernetes: ['k8s'],
  'VS Code': ['VSCode', 'Visual Studio Code'],
  WeChat: ['微信'],
  Alipay: ['支付宝'],
};

export interface EntityAliasTable {
  /** Normalised surface form (canonical names included) → canonical name. */
  readonly canonicalOf: ReadonlyMap<string, string>;
  /** Canonical name → the surface forms that were learned (not configured) for it. */
  readonly learned: ReadonlyMap<string, readonly string[]>;
}

export function normaliseEntity(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

const HAN = /\p{Script=Han}/u;
const LATIN_WORD_CHAR = /[\p{L}\p{N}]/u;

/** Builds a table from configured entries; later entries never override an earlier mapping. */
export function buildAliasTable(...sources: readonly AliasEntries[]): EntityAliasTable {
  const canonicalOf = new Map<string, string>();
  for (const entries of sources) {
    for (const [canonical, aliases] of Object.entries(entries)) {
      for (const name of [canonical, ...aliases]) {
        const key = normaliseEntity(name);
        if (key !== '' && !canonicalOf.has(key)) canonicalOf.set(key, canonical);
      }
    }
  }
  return { canonicalOf, learned: new Map() };
}

export const defaultAliasTable: EntityAliasTable = buildAliasTable(DEFAULT_ENTITY_ALIASES);

/**
 * The canonical names of the entities `text` mentions, in order of first mention. Longest
 * surface form first ("亚马逊云" is AWS, not Amazon); Latin names match on word boundaries
 * ("aws" is not in "laws"), Chinese names as substrings.
 */
export function findEntities(text: string, table: EntityAliasTable): string[] {
  const haystack = normaliseEntity(text);
  const forms = surfaceFormsOf(table);
  const taken: boolean[] = new Array(haystack.length).fill(false);
  const found: { at: number; canonical: string }[] = [];
  for (const form of forms) {
    let from = 0;
    for (;;) {
      const at = haystack.indexOf(form, from);
      if (at < 0) break;
      from = at + 1;
      const end = at + form.length;
      if (taken.slice(at, end).some(Boolean)) continue;
      if (!HAN.test(form) && !onWordBoundaries(haystack, at, end)) continue;
      taken.fill(true, at, end);
      found.push({ at, canonical: table.canonicalOf.get(form)! });
    }
  }
  const ordered = found.sort((a, b) => a.at - b.at).map((f) => f.canonical);
  return [...new Set(ordered)];
}

const sortedForms = new WeakMap<ReadonlyMap<string, string>, readonly string[]>();

/** The table's surface forms, longest first: sorted once per table, not per text (tables are immutable). */
function surfaceFormsOf(table: EntityAliasTable): readonly string[] {
  let forms = sortedForms.get(table.canonicalOf);
  if (!forms) {
    forms = [...table.canonicalOf.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    sortedForms.set(table.canonicalOf, forms);
  }
  return forms;
}

function onWordBoundaries(text: string, start: number, end: number): boolean {
  const before = start === 0 ? '' : text[start - 1];
  const after = end >= text.length ? '' : text[end];
  return !(before && LATIN_WORD_CHAR.test(before) && !HAN.test(before)) && !(after && LATIN_WORD_CHAR.test(after) && !HAN.test(after));
}

/**
 * What recall searches for: the query, plus the canonical name of every entity it mentions, plus
 * the learned surface forms of those entities (the index only knows configured aliases, so a
 * memory that says "大象库" is found through the learned name itself).
 */
export function expandQuery(query: string, table: EntityAliasTable): string {
  const present = normaliseEntity(query);
  const extra: string[] = [];
  for (const canonical of findEntities(query, table)) {
    for (const name of [canonical, ...(table.learned.get(canonical) ?? [])]) {
      const key = normaliseEntity(name);
      if (!present.includes(key) && !extra.some((e) => normaliseEntity(e) === key)) extra.push(name);
    }
  }
  return extra.length === 0 ? query : `${query} ${extra.join(' ')}`;
}

// ---- learned aliases -------------------------------------------------------------------------

const zhSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * "X（Y）", "X (Y)", "X (aka Y)", "X（即Y）": a name directly followed by another in parentheses.
 * X is a Han run (cut to its last word below), a run of capitalised Latin words, or one Latin word.
 */
const GLOSS =
  /([\p{Script=Han}]+|[\p{Lu}\p{N}][\p{Script=Latin}\p{N}.+#-]*(?: [\p{Lu}\p{N}][\p{Script=Latin}\p{N}.+#-]*){1,3}|[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}.+#-]*)\s*[（(]\s*(?:aka|a\.k\.a\.|also known as|即|也叫|又叫|又称|简称)?\s*([^()（）,，。;；:：、[\]]{1,40}?)\s*[）)]/gu;
const NAME = /^[\p{L}\p{N}][\p{L}\p{N} .+#-]*$/u;

/** The alias pairs glossed in one text (each pair once, normalised order-free key). */
export function glossedPairs(text: string): [string, string][] {
  const pairs = new Map<string, [string, string]>();
  for (const match of text.normalize('NFKC').matchAll(GLOSS)) {
    const name = HAN.test(match[1]) && !/[A-Za-z]/.test(match[1]) ? lastHanWord(match[1]) : match[1].trim();
    const gloss = match[2].trim();
    if (!isName(name) || !isName(gloss) || normaliseEntity(name) === normaliseEntity(gloss)) continue;
    const key = [normaliseEntity(name), normaliseEntity(gloss)].sort().join('\u0000');
    if (!pairs.has(key)) pairs.set(key, [name, gloss]);
  }
  return [...pairs.values()];
}

/** The Han run before a gloss holds the whole clause ("我们用的是甲骨文"): the name is its last word. */
function lastHanWord(run: string): string {
  const words = [...zhSegmenter.segment(run)].filter((s) => s.isWordLike).map((s) => s.segment);
  if (words.length === 0) return '';
  const last = words[words.length - 1];
  // One character is rarely a name on its own ("大象/库"): take the word before it too.
  return [...last].length === 1 && words.length > 1 ? words[words.length - 2] + last : last;
}

function isName(candidate: string): boolean {
  if (!NAME.test(candidate) || /^\p{N}+$/u.test(candidate)) return false;
  if ([...candidate].length < 2 || candidate.split(' ').length > 4) return false;
  return true;
}

/** A glossed pair becomes an alias once seen in this many texts (ENGRAM_ALIAS_MIN_SEEN's default). */
export const DEFAULT_ALIAS_MIN_SEEN = 2;

/**
 * Learns aliases from texts (one per memory): a pair glossed in at least `minSeen` distinct texts.
 * The canonical name is the configured one if either side is already known, else the Latin side,
 * else the gloss. A learned alias never overrides a configured mapping.
 */
export function learnAliases(texts: readonly string[], base: EntityAliasTable, minSeen = DEFAULT_ALIAS_MIN_SEEN): EntityAliasTable {
  return learnAliasesFromTurns(
    texts.map((text) => [text]),
    base,
    minSeen,
  );
}

/**
 * As `learnAliases`, a sighting being a turn: a pair glossed in at least `minSeen` turns, each
 * turn's texts read one by one (a gloss never spans two of them) and its pair counted once.
 */
export function learnAliasesFromTurns(
  turns: readonly (readonly string[])[],
  base: EntityAliasTable,
  minSeen = DEFAULT_ALIAS_MIN_SEEN,
): EntityAliasTable {
  if (minSeen <= 0) return base;
  const counts = new Map<string, { pair: [string, string]; seen: number }>();
  for (const texts of turns) {
    const inTurn = new Set<string>();
    for (const text of texts) {
      for (const pair of glossedPairs(text)) {
        const key = pair.map(normaliseEntity).sort().join('\u0000');
        if (inTurn.has(key)) continue;
        inTurn.add(key);
        const entry = counts.get(key);
        if (entry) entry.seen++;
        else counts.set(key, { pair, seen: 1 });
      }
    }
  }
  // Nothing seen often enough: the base table itself (its surface forms stay sorted, see `surfaceFormsOf`).
  if (![...counts.values()].some(({ seen }) => seen >= minSeen)) return base;
  const canonicalOf = new Map(base.canonicalOf);
  const learned = new Map<string, string[]>([...base.learned].map(([k, v]) => [k, [...v]]));
  const sorted = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, { pair, seen }] of sorted) {
    if (seen < minSeen) continue;
    const [name, gloss] = pair;
    const known = canonicalOf.get(normaliseEntity(name)) ?? canonicalOf.get(normaliseEntity(gloss));
    const canonical = known ?? (isLatin(name) && !isLatin(gloss) ? name : gloss);
    for (const form of [name, gloss]) {
      const key = normaliseEntity(form);
      if (canonicalOf.has(key)) continue;
      canonicalOf.set(key, canonical);
      if (normaliseEntity(canonical) !== key) learned.set(canonical, [...(learned.get(canonical) ?? []), form]);
    }
    if (!canonicalOf.has(normaliseEntity(canonical))) canonicalOf.set(normaliseEntity(canonical), canonical);
  }
  return { canonicalOf, learned };
}

function isLatin(name: string): boolean {
  return !HAN.test(name);
}

/**
 * Parses `ENGRAM_ENTITY_ALIASES` content: `{"Oracle": ["甲骨文", "甲骨文数据库"], …}`.
 * Returns the entries, or the problems found (naming the offending key).
 */
export function parseAliasEntries(json: string): { entries: AliasEntries } | { problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { problems: ['must be JSON like {"Oracle": ["甲骨文", "甲骨文数据库"]} or the path of such a file'] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problems: ['must be a JSON object mapping a canonical name to a list of aliases'] };
  }
  const problems: string[] = [];
  for (const [canonical, aliases] of Object.entries(parsed)) {
    if (canonical.trim() === '') problems.push('canonical names must not be empty');
    if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === 'string' && a.trim() !== '')) {
      problems.push(`"${canonical}" must map to a list of non-empty strings`);
    }
  }
  return problems.length > 0 ? { problems } : { entries: parsed as AliasEntries };
}
