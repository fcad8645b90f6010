import type { MemoryKind } from '@engram/contracts';
import { escapeRegExp, findCue } from './cue-matching';
import { LAST_MENTIONED, mergeKeyOf, type ExtractedItemDraft, type ExtractionInput, type ExtractionStrategy } from './extraction.strategy';
import { defaultRuleExtractorConfig, type RuleExtractorConfig } from './rules/rule-extractor.config';
import {
  canonicalProduct,
  extractAmount,
  extractDate,
  extractProperNouns,
  extractQuoted,
  extractRecurrence,
  amountToNumber,
  findCatalog,
  isMoneyShaped,
  isTimeOfDay,
  slugify,
  stripEdges,
  trimPunctuation,
  uniqueCaseless,
} from './text-values';

/**
 * The embedded extractor: bilingual rules, no model. A turn is split into clauses and each clause
 * yields at most one fact (a profile clause such as "I'm a backend engineer at Stripe" may yield
 * two: role and employer). Rules are tried from the most specific (retractions, corrections) to
 * the most general (attribute statements), and the first one that recognises the clause wins.
 *
 * The merge key (subject/attribute) is what makes memory work over time: the same fact said again
 * must produce the same key and value (→ reinforced), a changed fact the same key and a new value
 * (→ superseded). Hence attributes are normalised slugs shared by both languages, and known
 * products have one canonical spelling.
 */
export class RuleExtractor implements ExtractionStrategy {
  readonly version: string;

  constructor(private readonly config: RuleExtractorConfig = defaultRuleExtractorConfig) {
    this.version = config.version;
  }

  async extract(input: ExtractionInput): Promise<ExtractedItemDraft[]> {
    return extractWithRules(input, this.config);
  }
}

/** Synchronous core of RuleExtractor, for callers that do not need the strategy interface. */
export function extractWithRules(input: ExtractionInput, config: RuleExtractorConfig = defaultRuleExtractorConfig): ExtractedItemDraft[] {
  if (input.role === 'system' || input.role === 'tool') return [];
  const reader = new ClauseReader(config);
  const drafts = [...input.text.matchAll(SENTENCE)].flatMap(([sentence]) =>
    splitClauses(sentence, config).flatMap((raw) => {
      const clause = reader.prepare(raw, input.role);
      if (!clause) return [];
      const findings = input.role === 'assistant' ? reader.readAssistant(clause) : reader.readUser(clause);
      // "跑步时间改了，天冷了，改成周一三五晚上…": an open correction's clause says nothing of what it
      // corrects; its sentence often does, and is what a later question is matched against.
      const about = (f: Finding) =>
        f.correction === 'open' && f.operation !== 'retract' ? { ...clause, content: trimClause(sentence) } : clause;
      return findings.map((f) => reader.toDraft(f, about(f), input));
    }),
  );
  return dedupe(wholeTurnRules(scopeBudgets(drafts, input.text, config), input.text, config));
}

/**
 * "I prefer type hints everywhere, and I really dislike bare `except:` clauses, so keep that in mind
 * when you write snippets": the rule points back at what the turn said before it, so its content is
 * the whole turn, or the procedure would say only "keep that in mind".
 */
function wholeTurnRules(drafts: ExtractedItemDraft[], text: string, config: RuleExtractorConfig): ExtractedItemDraft[] {
  return drafts.map((d) =>
    d.kind === 'procedure' && d.content !== text.trim() && findCue(d.content, config.procedures.anaphora)
      ? { ...d, content: text.trim() }
      : d,
  );
}

/**
 * A budget said in a turn that names what is being bought is that thing's budget: "想给我老婆挑个生日
 * 礼物……预算两千左右" → `budget:生日礼物`, "还想买个空气净化器，预算三千以内" → `budget:空气净化器`.
 * Without the scope the second supersedes the first (one merge key `user/budget`). A budget with no
 * purchase named stays `budget`, and the resolver lets it correct the latest scoped one ("预算提到五万了").
 */
function scopeBudgets(drafts: ExtractedItemDraft[], text: string, config: RuleExtractorConfig): ExtractedItemDraft[] {
  if (!drafts.some((d) => d.attribute === 'budget')) return drafts;
  const thing = purchaseOf(text, config);
  if (!thing) return drafts;
  return drafts.map((d) =>
    d.attribute === 'budget'
      ? { ...d, attribute: `budget:${thing}`, entities: d.entities.includes(thing) ? d.entities : [...d.entities, thing] }
      : d,
  );
}

/** What the turn says is being bought: the words after a purchase cue, up to the clause's end. */
export function purchaseOf(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string | null {
  const cue = findCue(text, config.plans.purchase);
  if (!cue) return null;
  const rest = text.slice(cue.end).split(/[，,。.;；!！?？、]|\s+(?:and|for|with|but|under|around|about)\s+|预算|左右|以内/iu)[0];
  const thing = trimClause(rest)
    .replace(/^(?:个|一个|台|一台|辆|一辆|件|一件|款|一款|新的?|the|a|an|new)\s*/iu, '')
    .replace(/(?:吧|呢|啊|了)$/u, '')
    .trim()
    .toLowerCase();
  // A name, not a sentence: at most 12 characters of Chinese or 4 words.
  if (!thing || thing.length > 24 || thing.split(/\s+/).length > 4 || (/\p{Script=Han}/u.test(thing) && thing.length > 12)) return null;
  return thing;
}

/**
 * Whether a turn states anything: at least one clause that is neither a question nor (for the
 * user) a bare request. "上次你给我推荐的那家店叫什么" states nothing; "下周去成都，有推荐吗" does.
 */
export function statesSomething(
  input: Pick<ExtractionInput, 'role' | 'text'>,
  config: RuleExtractorConfig = defaultRuleExtractorConfig,
): boolean {
  if (input.role === 'system' || input.role === 'tool') return false;
  const reader = new ClauseReader(config);
  return splitClauses(input.text, config).some((raw) => reader.prepare(raw, input.role) !== null);
}

/** Known products (canonical names) and proper nouns of a text: what it is found by besides its words. */
export function entitiesOf(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string[] {
  return new ClauseReader(config).entities(text, []);
}

// ---- clauses ---------------------------------------------------------------------------------

interface Clause {
  /** The clause as said (trimmed): becomes the item's content. */
  readonly content: string;
  /** What the rules read: connectors, "remember"/"actually" leads and a third-party subject removed. */
  readonly body: string;
  readonly subject: string;
  /** "记住…", "remember that…": said on purpose, so more confident and more important. */
  readonly remembered: boolean;
  /** "其实…", "actually…", "不对，…": the clause corrects an earlier statement. */
  readonly corrected: boolean;
  /**
   * A correction lead that says what follows replaces something ("actually", "其实", "我改主意了"),
   * not one that is as often conversation ("sorry", "no," answering a question): only then may the
   * clause's findings land on another memory (`correction`).
   */
  readonly retargets: boolean;
  /** "永远", "always", "never forget": said with emphasis, as important as "记住". */
  readonly emphasised: boolean;
}

interface Finding {
  readonly kind: MemoryKind;
  readonly attribute: string;
  readonly value: string;
  readonly confidence: number;
  readonly importance?: number;
  readonly operation?: 'assert' | 'retract';
  readonly subject?: string;
  readonly entities?: readonly string[];
  /** Set by the correction rules: `named` when the finding names what it corrects, `open` when not. */
  readonly correction?: 'named' | 'open';
}

const SENTENCE = /[^。！？!?；;\n]+[。！？!?；;\n]*/gu;
const clauseBreaks = new WeakMap<readonly string[], RegExp>();

/** Commas, a full stop that is not an abbreviation's ("Dr. Alvarez"), or "and/but/so" before a new subject. */
function clauseBreak(config: RuleExtractorConfig): RegExp {
  let re = clauseBreaks.get(config.clauses.abbreviations);
  if (!re) {
    const abbreviations = config.clauses.abbreviations.map(escapeRegExp).join('|');
    re = new RegExp(
      `，|,(?!\\d)|(?<=\\.)(?<!(?<![\\p{L}])(?:${abbreviations})\\.)\\s+|\\s+(?:and|but|so)\\s+(?=(?:i|i'm|we|we're|my|our|the|it|it's|let's|you|he|she|they|also)\\b)`,
      'giu',
    );
    clauseBreaks.set(config.clauses.abbreviations, re);
  }
  return re;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Splits a turn into clauses, keeping "不是三万，是五万" and "Actually, it's 50k" whole. Clauses are
 * spans of the original text, so content keeps the user's exact wording and punctuation.
 */
export function splitClauses(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string[] {
  const clauses: string[] = [];
  for (const sentence of text.matchAll(SENTENCE)) {
    const offset = sentence.index ?? 0;
    const pieces: Span[] = [];
    let start = 0;
    for (const sep of sentence[0].matchAll(clauseBreak(config))) {
      pieces.push({ start: offset + start, end: offset + (sep.index ?? 0) });
      start = (sep.index ?? 0) + sep[0].length;
    }
    pieces.push({ start: offset + start, end: offset + sentence[0].length });
    const meaningful = pieces.filter((p) => trimPunctuation(text.slice(p.start, p.end)).length > 0);
    clauses.push(...mergePieces(text, meaningful, config).map((p) => text.slice(p.start, p.end).trim()));
  }
  return clauses;
}

/**
 * Cue lists derived from the configuration, built once per configuration: findCue caches its
 * compiled regex per list *object*, so a list rebuilt per call compiled a large alternation per
 * sentence (~4 % of ingest CPU).
 */
const derivedCues = new WeakMap<RuleExtractorConfig, { leads: readonly string[]; employer: readonly string[] }>();

function derived(config: RuleExtractorConfig): { leads: readonly string[]; employer: readonly string[] } {
  let lists = derivedCues.get(config);
  if (!lists) {
    lists = {
      leads: [
        ...config.clauses.connectors,
        ...config.clauses.remember,
        ...config.corrections.correctionLead,
        ...config.corrections.correctionAlone,
      ],
      employer: config.identity.employer.filter((e) => e !== '我在'),
    };
    derivedCues.set(config, lists);
  }
  return lists;
}

const relationPatterns = new WeakMap<
  RuleExtractorConfig['identity']['relations'],
  { subject: string; han: boolean; startsWithWo: boolean; re: RegExp }[]
>();

/** "我老婆", "my wife": one compiled prefix per relation name, once per configuration. */
function relationsOf(relations: RuleExtractorConfig['identity']['relations']) {
  let patterns = relationPatterns.get(relations);
  if (!patterns) {
    patterns = Object.entries(relations).flatMap(([subject, names]) =>
      names.map((name) => ({
        subject,
        han: /\p{Script=Han}/u.test(name),
        startsWithWo: name.startsWith('我'),
        re: new RegExp(`^(?:我的?|my\\s+)?${name.replace(/^我/u, '')}(?:的|'s)?\\s*`, 'iu'),
      })),
    );
    relationPatterns.set(relations, patterns);
  }
  return patterns;
}

function mergePieces(text: string, pieces: readonly Span[], config: RuleExtractorConfig): Span[] {
  const leads = derived(config).leads;
  const merged: Span[] = [];
  let carry: Span | null = null;
  for (const piece of pieces) {
    const current: Span = carry ? { start: carry.start, end: piece.end } : piece;
    carry = null;
    const previous = merged[merged.length - 1];
    const pieceText = text.slice(piece.start, piece.end).trim();
    const previousText = previous ? text.slice(previous.start, previous.end) : '';
    const notButIs =
      (/不是/u.test(previousText) && /^(?:而是|是|而)/u.test(pieceText)) ||
      (/\bnot\b/iu.test(previousText) && /^(?:it's|it is|but|rather)\b/iu.test(pieceText));
    if (previous && notButIs) {
      merged[merged.length - 1] = { start: previous.start, end: piece.end };
    } else if (isOnlyLead(pieceText, leads)) {
      carry = current;
    } else {
      merged.push(current);
    }
  }
  if (carry) merged.push(carry);
  return merged;
}

function isOnlyLead(piece: string, leads: readonly string[]): boolean {
  const bare = trimPunctuation(piece);
  const match = findCue(bare, leads);
  return match !== null && match.index === 0 && match.end === bare.length;
}

/** Removes one cue from the start of the text, if one is there. */
function stripLead(text: string, cues: readonly string[]): { rest: string; matched: boolean } {
  const match = findCue(text, cues);
  if (!match || match.index !== 0) return { rest: text, matched: false };
  return { rest: trimClause(text.slice(match.end)), matched: true };
}

function dedupe(drafts: ExtractedItemDraft[]): ExtractedItemDraft[] {
  const seen = new Set<string>();
  return drafts.filter((d) => {
    const key = `${mergeKeyOf(d)}|${d.operation}|${d.value.toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---- the rules -------------------------------------------------------------------------------

const IMPORTANCE: Readonly<Record<MemoryKind, number>> = {
  profile: 0.9,
  decision: 0.8,
  task: 0.7,
  insight: 0.7,
  procedure: 0.85,
  summary: 0.5,
  fact: 0.6,
  preference: 0.6,
  episode: 0.3,
};

const FIRST_PERSON = /^(?:我们|我|咱们|we|i)\s*/iu;

class ClauseReader {
  constructor(private readonly config: RuleExtractorConfig) {}

  prepare(raw: string, role: ExtractionInput['role']): Clause | null {
    const content = trimClause(raw);
    if (!content || this.isQuestion(raw)) return null;
    let body = this.stripConnectors(content);
    const remember = this.stripRemember(body);
    body = this.stripConnectors(remember.rest);
    const correction = this.stripCorrectionLead(body);
    body = this.stripConnectors(correction.rest);
    if (!body) return null;
    // "请用中文回答" opens like a request, but a standing one: a rule for the assistant, not this turn's ask.
    if (role === 'user' && !remember.matched && this.isRequest(body) && !this.procedureOf(body)) return null;
    const third = role === 'user' ? this.thirdParty(body) : null;
    return {
      content,
      body: third?.body ?? body,
      subject: third?.subject ?? (role === 'assistant' ? 'assistant' : 'user'),
      remembered: remember.matched,
      corrected: correction.matched,
      // "其实我也喜欢 Python" adds to what was said; it corrects nothing.
      retargets: correction.strong && findCue(body, this.config.clauses.additive) === null,
      emphasised: findCue(content, this.config.clauses.emphasis) !== null,
    };
  }

  /**
   * "记住…", and a remember cue after words that only stress it ("这条必须永远记住：我女儿对花生过敏",
   * "always remember that …"): the preamble goes with the cue, so it cannot become the subject.
   */
  private stripRemember(body: string): { rest: string; matched: boolean } {
    const direct = stripLead(body, this.config.clauses.remember);
    if (direct.matched) return direct;
    let rest = body;
    for (
      let lead = stripLead(rest, this.config.clauses.rememberPreamble);
      lead.matched;
      lead = stripLead(rest, this.config.clauses.rememberPreamble)
    ) {
      rest = lead.rest;
    }
    const after = rest === body ? direct : stripLead(rest, this.config.clauses.remember);
    return after.matched ? after : { rest: body, matched: false };
  }

  /** "actually …", and "no, …" / "不对，…" where the lead stands on its own before a comma. */
  private stripCorrectionLead(body: string): { rest: string; matched: boolean; strong: boolean } {
    let rest = body;
    let matched = false;
    let strong = false;
    for (let round = 0; round < 2; round++) {
      const lead = findCue(rest, this.config.corrections.correctionLead);
      const alone = findCue(rest, this.config.corrections.correctionAlone);
      if (lead && lead.index === 0) {
        strong ||= findCue(lead.cue, this.config.corrections.weakCorrectionLead)?.end !== lead.cue.length;
        rest = this.stripConnectors(rest.slice(lead.end));
      } else if (alone && alone.index === 0 && /^\s*[,，。.!！;；:：]/u.test(rest.slice(alone.end))) {
        rest = this.stripConnectors(rest.slice(alone.end));
      } else break;
      matched = true;
    }
    return { rest, matched, strong };
  }

  /** Rules for what the user says about themselves (or about someone they name). */
  readUser(clause: Clause, nested = false): Finding[] {
    const rules: ((c: Clause) => Finding[] | Finding | null)[] = [
      (c) => this.procedure(c),
      (c) => this.retraction(c, nested),
      (c) => this.correction(c),
      (c) => this.allergy(c),
      (c) => this.name(c),
      (c) => this.profile(c),
      (c) => this.budget(c),
      (c) => this.deadline(c),
      (c) => this.schedule(c),
      (c) => this.decision(c),
      (c) => this.dislike(c),
      (c) => this.like(c),
      (c) => this.task(c),
      (c) => this.statement(c),
      (c) => this.anaphoricCorrection(c),
      (c) => this.remembered(c),
    ];
    for (const rule of rules) {
      const found = rule(clause);
      if (found && (!Array.isArray(found) || found.length > 0)) return Array.isArray(found) ? found : [found];
    }
    return [];
  }

  /** The assistant's recommendations, promises and conclusions; nothing else it says is a fact. */
  readAssistant(clause: Clause): Finding[] {
    const found = this.recommendation(clause) ?? this.promise(clause) ?? this.conclusion(clause);
    return found ? [found] : [];
  }

  toDraft(finding: Finding, clause: Clause, input: ExtractionInput): ExtractedItemDraft {
    const boost = clause.remembered || clause.emphasised ? 0.15 : 0;
    const correction = finding.correction ?? (clause.retargets ? 'named' : undefined);
    const keys = this.attributeWords(finding.attribute);
    const confidence = clause.remembered
      ? Math.max(finding.confidence, 0.9)
      : clause.corrected
        ? Math.max(finding.confidence, 0.85)
        : finding.confidence;
    return {
      kind: finding.kind,
      subject: finding.subject ?? clause.subject,
      attribute: finding.attribute,
      value: finding.value,
      content: clause.content,
      entities: this.entities(clause.content, finding.entities ?? []),
      confidence: round(confidence),
      importance: round(Math.min(1, this.importanceOf(finding) + boost)),
      ephemeral: input.ephemeral,
      operation: finding.operation ?? 'assert',
      validFrom: input.occurredAt,
      sourceTurnIds: [input.turnId],
      ...(keys ? { keys: [keys] } : {}),
      ...(correction ? { correction } : {}),
    };
  }

  /**
   * What a known attribute is called in both languages ("数据库 database db"): a search key of the
   * fact, so "我们用什么数据库" finds "不是MySQL，是PostgreSQL" and "which database" finds "数据库用 PG".
   */
  private attributeWords(attribute: string): string | null {
    const words = this.config.words.attributes[attribute.split(':')[0]];
    return words ? words.join(' ') : null;
  }

  // -- how the assistant should act --

  /**
   * "以后报价先给区间再给明细", "always answer in English", "别用表情包", "代码示例用 TypeScript": a standing
   * rule for the assistant, kind `procedure`, attribute `procedure:<topic>` so a later rule on the same
   * topic ("以后用中文回答") supersedes it. Tried first: "代码示例改成 Python" is a new rule, not a new
   * programming language of the user's.
   */
  private procedure(c: Clause): Finding | null {
    if (c.subject !== 'user') return null;
    const found = this.procedureOf(c.body);
    if (!found) return null;
    const value = trimPunctuation(c.body);
    return {
      kind: 'procedure',
      attribute: `procedure:${found.topic ?? slugify(value)}`,
      value,
      confidence: 0.85,
    };
  }

  /** Whether a clause is a rule for the assistant, and the topic it is about (null: none named). */
  private procedureOf(body: string): { topic: string | null } | null {
    const cues = this.config.procedures;
    const text = trimPunctuation(body);
    if (findCue(text, cues.oneOff)) return null;
    // "我不用表情包", "I always answer emails at night": the user's own habits, not the assistant's rules.
    if (/^(?:我|咱们|i\b|we\b|my\b|our\b)/iu.test(text) && !findCue(text, cues.addressing)) return null;
    const topic = this.procedureTopic(text);
    const response = findCue(text, cues.responses);
    if (!topic && !response) return null;
    const instructs = response !== null || findCue(text, cues.actions) !== null;
    const standing = findCue(text, cues.standing) !== null;
    const ask = findCue(text, cues.asks) !== null || findCue(text, cues.addressing) !== null;
    // "用中文回答", "use TypeScript for code examples": an imperative naming a topic.
    const imperative = topic !== null && findCue(text, cues.actions)?.index === 0;
    // "代码示例用 TypeScript", "code examples in TypeScript".
    const topicLed = topic?.index === 0 && findCue(text.slice(topic.end).trimStart(), cues.topicInstructions)?.index === 0;
    const rule = imperative || topicLed || (standing && instructs) || (ask && topic !== null && instructs);
    return rule ? { topic: topic?.slug ?? null } : null;
  }

  /** The topic named first (the longest word when two start at the same place). */
  private procedureTopic(text: string): { slug: string; index: number; end: number } | null {
    let best: { slug: string; index: number; end: number } | null = null;
    for (const [slug, words] of Object.entries(this.config.procedures.topics)) {
      const m = findCue(text, words);
      if (m && (!best || m.index < best.index || (m.index === best.index && m.end > best.end))) best = { slug, index: m.index, end: m.end };
    }
    return best;
  }

  // -- retractions and corrections --

  private retraction(c: Clause, nested = false): Finding | null {
    // "forget that", "当我没说": the whole clause points back; "forget that I like durian" names its object.
    const anaphora = findCue(c.body, this.config.corrections.retractAnaphora);
    const anaphoric = anaphora !== null && trimPunctuation(c.body.slice(0, anaphora.index) + c.body.slice(anaphora.end)) === '';
    const cue = findCue(c.body, this.config.corrections.retract);
    if (!anaphoric && !cue) return null;
    const rest = cue ? c.body.slice(0, cue.index) + ' ' + c.body.slice(cue.end) : c.body;
    const attribute = this.findAttribute(rest);
    const product = findCatalog(rest, this.config.catalog)[0];
    const retract = (attr: string, value: string, correction?: Finding['correction'], subject?: string): Finding => ({
      kind: this.kindOf(attr, 'fact'),
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
    const forget = findCue(c.body, this.config.corrections.forget);
    const asked =
      forget !== null && (forget.index === 0 || stripLead(c.body.slice(0, forget.index), this.config.corrections.forgetAsk).rest === '');
    if (!forget || !asked || nested) return null; // "我不再吃肉了" names nothing we hold: a new preference, not a retraction.
    // "忘掉我之前说的喜欢吃榴莲": what to forget is itself a statement; read it with the other rules.
    const object = this.forgetObject(c.body.slice(forget.end));
    if (!object) return null;
    const said = this.prepare(object, 'user');
    const named = said ? this.readUser(said, true).find((f) => f.operation !== 'retract') : undefined;
    if (named && said) {
      return {
        ...retract(named.attribute, '', 'named', named.subject ?? (said.subject !== c.subject ? said.subject : undefined)),
        kind: named.kind,
      };
    }
    // "forget what I said about durian": no rule reads it; the resolver retracts the memory it is most like.
    return retract(LAST_MENTIONED, '', 'open');
  }

  /** "我之前说的喜欢吃榴莲" → "喜欢吃榴莲", "what I said about durian" → "durian". */
  private forgetObject(raw: string): string {
    let rest = trimClause(raw);
    for (let changed = true; changed;) {
      changed = false;
      const lead = stripLead(rest, this.config.corrections.forgetFillers);
      if (lead.matched) [rest, changed] = [lead.rest, true];
      const tail = this.config.corrections.forgetFillers.find(
        (f) => /\p{Script=Han}/u.test(f) && rest.endsWith(f) && rest.length > f.length,
      );
      if (tail) [rest, changed] = [trimClause(rest.slice(0, -tail.length)), true];
    }
    return rest;
  }

  private correction(c: Clause): Finding | null {
    const notButIs = /^(?<pre>.*?)不是(?<old>[^，,]+?)[，,\s]*(?:而是|是|而)(?<neu>.+)$/u.exec(c.body);
    if (notButIs?.groups) return this.correctTo(notButIs.groups.pre, notButIs.groups.neu, true, c.body);
    const notBut = /^(?<pre>.*?)\bnot\s+(?<old>.+?),?\s+(?:but|it's|it is)\s+(?<neu>.+)$/iu.exec(c.body);
    if (notBut?.groups) return this.correctTo(notBut.groups.pre, notBut.groups.neu, true, c.body);
    const assign = this.assignment(c.body);
    if (assign) return this.correctTo(assign.pre, assign.raw, false, c.body);
    const change = findCue(c.body, this.config.corrections.changeVerbs);
    if (!change) return null;
    const pre = c.body.slice(0, change.index);
    // "now I have a drive for backups" opens with a change word but corrects nothing; "改成9点" does.
    if (trimPunctuation(pre) === '' && findCue(change.cue, this.config.corrections.openChangeVerbs)?.end !== change.cue.length) return null;
    return this.correctTo(pre, c.body.slice(change.end), false, c.body);
  }

  /** "set the standup to 9am", "move my dentist appointment to Friday": the attribute, then the value. */
  private assignment(body: string): { pre: string; raw: string } | null {
    const lead = findCue(body, this.config.corrections.assignLeads);
    if (!lead || lead.index !== 0) return null;
    const to = /\s+to\s+/iu.exec(body.slice(lead.end));
    if (!to) return null;
    return { pre: body.slice(lead.end, lead.end + to.index), raw: body.slice(lead.end + to.index + to[0].length) };
  }

  /**
   * A new value for an attribute named before the verb (a known attribute, a product, or the phrase
   * itself: "我的收货地址改成…" → `收货地址`), else implied by the value's shape (an amount is a budget
   * only in a sentence about money). With nothing before the verb ("不对，改成9点", "no, make it 10")
   * it is an open correction: the resolver finds what it answers.
   */
  private correctTo(pre: string, raw: string, explicit: boolean, sentence = raw): Finding | null {
    const amount = extractAmount(raw);
    const money = findCue(sentence, this.config.corrections.money) !== null || (amount !== null && isMoneyShaped(amount));
    const named = this.findAttribute(pre)?.slug ?? this.productCategory(pre) ?? this.phraseAttribute(pre);
    const inferred = named ? null : this.inferAttribute(raw, money);
    const bare = trimPunctuation(pre.replace(FIRST_PERSON, '')) === '';
    const attribute = named ?? inferred ?? (explicit || bare ? LAST_MENTIONED : null);
    if (!attribute) return null;
    // "my position now is Go backend engineer": the copula after the verb is not part of the value.
    const said = stripLead(trimClause(raw), ['is', 'are', 'was', '是', '为']).rest;
    const value = this.valueFor(attribute, attribute === LAST_MENTIONED ? this.openValue(said) : said, money);
    if (!value) return null;
    return {
      kind: this.kindOf(attribute, 'fact'),
      attribute,
      value,
      confidence: 0.85,
      correction: attribute === LAST_MENTIONED ? 'open' : 'named',
    };
  }

  /** "我的收货地址", "把服务器时间", "my meeting room": a noun phrase that names what changes. */
  private phraseAttribute(pre: string): string | null {
    let phrase = trimClause(pre);
    for (
      let lead = /^(?:把|将|我的|我们的|咱们的|my|our|the)\s*/iu.exec(phrase);
      lead;
      lead = /^(?:把|将|我的|我们的|咱们的|my|our|the)\s*/iu.exec(phrase)
    ) {
      phrase = phrase.slice(lead[0].length);
    }
    phrase = this.clean(phrase.replace(/(?:的|'s)$/u, ''));
    if (!phrase || FIRST_PERSON.test(phrase) || this.hasNowAdverb(phrase) || findCue(phrase, this.config.corrections.notInAttribute))
      return null;
    const han = /^\p{Script=Han}{2,12}$/u.test(phrase);
    const latin = /^[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}$/iu.test(phrase) && !/^(?:it|this|that|he|she|they|you)$/iu.test(phrase);
    return han || latin ? slugify(phrase) : null;
  }

  private hasNowAdverb(text: string): boolean {
    return findCue(text, this.config.words.nowAdverbs) !== null;
  }

  /** "我要低卡方案" → "低卡方案", "I want a low-calorie plan" → "low-calorie plan". */
  private openValue(raw: string): string {
    const rest = stripLead(trimClause(raw), this.config.corrections.openValueFillers).rest;
    return rest.replace(/^(?:an?|the)\s+/iu, '');
  }

  /** "actually it's 50k", "我改主意了，…": nothing else matched, so the clause is a bare new value. */
  private anaphoricCorrection(c: Clause): Finding | null {
    if (!c.corrected) return null;
    const raw = c.body.replace(/^(?:it's|it is|that's|that is|make that|it should be|should be|应该是|是)\s*/iu, '');
    const found = this.correctTo('', raw, true, c.body);
    // "no, I haven't": words after a lead that is as often an answer correct nothing; "no, 10" does.
    if (!found || c.retargets || found.attribute !== LAST_MENTIONED || valueShapeOf(found.value) !== 'text') return found;
    const { correction: _open, ...plain } = found;
    return plain;
  }

  // -- who the user is --

  private allergy(c: Clause): Finding | null {
    const zh = /对(.+?)过敏/u.exec(c.body);
    const cue = zh ? null : findCue(c.body, this.config.identity.allergy);
    const raw = zh?.[1] ?? (cue ? c.body.slice(cue.end) : null);
    const value = raw ? this.clean(raw) : '';
    if (!value) return null;
    return { kind: 'profile', attribute: `allergy:${slugify(value)}`, value, confidence: 0.9, importance: 0.95 };
  }

  private name(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.identity.name);
    if (cue) {
      const name = this.personName(c.body.slice(cue.end));
      if (name) return this.nameFinding(name, 0.9);
    }
    // "我是老周" / "I'm Alex": a bare name, said without a cue, is likelier a name than anything else.
    const zh = /^我是(\p{Script=Han}{2,4})$/u.exec(c.body);
    if (zh && !/^[不在说想觉个一很挺真这那]/u.test(zh[1]) && !this.hasRoleSuffix(zh[1]) && !/人$/u.test(zh[1])) {
      return this.nameFinding(zh[1], 0.6);
    }
    const en = /^i(?:'m|’m| am)\s+([A-Z][\p{L}]+)$/u.exec(c.body.replace(/^I/, 'i'));
    const nationality = this.nationality(c.body, en?.[1]);
    if (nationality) return { kind: 'profile', attribute: 'nationality', value: nationality, confidence: 0.85, entities: [nationality] };
    if (en && !this.isNotEntity(en[1]) && findCatalog(en[1], this.config.catalog).length === 0) {
      return this.nameFinding(en[1], 0.7);
    }
    return null;
  }

  /** "I'm Italian", "我是意大利人": who they are by nationality, which is never their name. */
  private nationality(body: string, bareEnglish: string | undefined): string | null {
    const known = (word: string) => this.config.identity.nationalities.find((n) => n.toLowerCase() === word.toLowerCase()) ?? null;
    if (bareEnglish) return known(bareEnglish);
    const zh = /^我是(\p{Script=Han}{1,5})人$/u.exec(body);
    return zh ? known(zh[1]) : null;
  }

  private nameFinding(name: string, confidence: number): Finding {
    return { kind: 'profile', attribute: 'name', value: name, confidence, entities: [name] };
  }

  /** A name right after its cue: a short Han run, or up to three capitalised words. */
  private personName(rest: string): string | null {
    const text = trimPunctuation(rest);
    const han = /^(\p{Script=Han}{1,4}?)(?=$|[的是，,。\s]|就|吧|啊|呀|哦)/u.exec(text);
    if (han) return han[1];
    const latin = /^([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2})/u.exec(text);
    return latin && !this.isNotEntity(latin[1]) ? latin[1] : null;
  }

  private profile(c: Clause): Finding[] | null {
    // "我在字节跳动工作", but not "我在评估工作量": the verb ends the clause or is followed by a particle.
    const zhEmployer = /^(?:我(?:现在|目前)?)?在(.{1,20}?)(?:工作|上班|任职|就职|实习)(?=$|[了呢啊呀，,。.！!；;\s])/u.exec(c.body);
    if (zhEmployer) {
      const where = this.clean(zhEmployer[1]);
      if (this.config.identity.places.home.includes(where)) return null; // works from home: the episode keeps it
      return [this.profileFinding(this.isPlace(where) ? 'location' : 'employer', where)];
    }
    const worksAs = /^(?:我(?:现在|目前)?)?在(?:一家|一个|某)?(?<org>.{1,15}?)(?:做|当)(?<role>.{1,12})$/u.exec(c.body);
    if (worksAs?.groups && findCue(worksAs.groups.org, this.config.identity.organisationSuffixes)?.end === worksAs.groups.org.length) {
      return [
        this.profileFinding('employer', this.clean(worksAs.groups.org)),
        this.profileFinding('role', this.clean(worksAs.groups.role)),
      ].filter((f) => f.value);
    }
    const employer = findCue(c.body, derived(this.config).employer);
    if (employer) {
      const rest = c.body.slice(employer.end);
      const company = this.clean(rest.split(/\s+as\s+|\s+in\s+|[，,]/iu)[0]);
      const role = /\s+as\s+(?:an?\s+)?(.+)$/iu.exec(rest);
      // An employer is an organisation by name: "I joined Stripe", not "I joined a gym" or "a nearby church".
      if (!this.isOrganisation(company)) return null;
      const found = [this.profileFinding('employer', company)];
      if (role && this.hasRoleSuffix(role[1])) found.push(this.profileFinding('role', this.clean(role[1])));
      return found.filter((f) => f.value);
    }
    const role = findCue(c.body, this.config.identity.role) ?? (/^我是/u.test(c.body) ? { index: 0, end: 2, cue: '我是' } : null);
    if (role) {
      const rest = c.body.slice(role.end).replace(/^\s*(?:一名|一个|一位|an?\s+)/iu, '');
      const [title, where] = rest.split(/\s+(?:at|@|in|for)\s+|在/iu);
      if (title && this.hasRoleSuffix(title)) {
        const found = [this.profileFinding('role', this.clean(title))];
        if (where) found.push(this.profileFinding('employer', this.clean(where.split(/[，,]/u)[0])));
        return found.filter((f) => f.value);
      }
    }
    for (const slot of ['location', 'hometown'] as const) {
      const cue = findCue(c.body, this.config.identity[slot]);
      const value = cue ? this.clean(c.body.slice(cue.end).split(/[，,]|\s+(?:and|but|since|for)\s+/iu)[0]) : '';
      if (value) return [this.profileFinding(slot, value)];
    }
    return null;
  }

  /** A name ("Stripe", "3M", "字节跳动") or a kind of organisation ("一家外企"); not "a gym", "the team". */
  private isOrganisation(value: string): boolean {
    return /^[\p{Lu}\p{N}\p{Script=Han}]/u.test(value) || findCue(value, this.config.identity.organisationSuffixes)?.end === value.length;
  }

  /** "北京", "苏州市", "浦东新区", but not "深圳市腾讯计算机系统有限公司" (an organisation by its end). */
  private isPlace(value: string): boolean {
    if (findCue(value, this.config.identity.organisationSuffixes)?.end === value.length) return false;
    const { cities, placeSuffixes } = this.config.identity.places;
    return cities.includes(value) || placeSuffixes.some((suffix) => value.endsWith(suffix));
  }

  private profileFinding(attribute: string, value: string): Finding {
    const named = attribute !== 'role' && value ? [value] : [];
    return { kind: 'profile', attribute, value, confidence: 0.85, entities: named };
  }

  // -- facts with a recognisable value shape --

  private budget(c: Clause): Finding | null {
    const named = this.findAttribute(c.body);
    if (named?.slug !== 'budget') return null;
    const amount = extractAmount(c.body.slice(named.end)) ?? extractAmount(c.body);
    if (!amount) return null;
    return { kind: 'fact', attribute: 'budget', value: amount, confidence: 0.85 };
  }

  private deadline(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.plans.deadline);
    if (!cue) return this.dueBy(c);
    const date = extractDate(c.body.slice(cue.end)) ?? extractDate(c.body);
    const value = date ?? this.clean(c.body.slice(cue.end));
    if (!value) return null;
    const scope = this.clean(
      c.body
        .slice(0, cue.index)
        .replace(date ?? '\u0000', '')
        .replace(/(?:的|'s)\s*$/u, '')
        .replace(/^(?:the|our|my|this|这个|我们的|我们|我的|项目的?)\s*/iu, ''),
    );
    const generic = !scope || /^(?:项目|project|it|this|这个)$/iu.test(scope);
    const attribute = generic ? 'deadline' : `deadline:${slugify(scope)}`;
    return { kind: 'task', attribute, value, confidence: 0.85, importance: 0.8 };
  }

  /** "下周三之前要把报告交给老板", "send the report by Friday": a dated task without the word deadline. */
  private dueBy(c: Clause): Finding | null {
    const date = extractDate(c.body);
    if (!date) return null;
    const at = c.body.indexOf(date);
    const before = /^\s*(?:之前|以前|前)/u.test(c.body.slice(at + date.length));
    const by = /\b(?:by|before)\s*$/iu.test(c.body.slice(0, at));
    if (!before && !by) return null;
    const what = this.clean(
      (c.body.slice(0, at).replace(/\b(?:by|before)\s*$/iu, '') + ' ' + c.body.slice(at + date.length).replace(/^\s*(?:之前|以前|前)/u, ''))
        .replace(FIRST_PERSON, '')
        .replace(/^(?:要|得|需要|必须|have to|need to|must)\s*/iu, ''),
    );
    if (!what) return null;
    return { kind: 'task', attribute: `deadline:${slugify(what)}`, value: date, confidence: 0.8, importance: 0.8 };
  }

  private schedule(c: Clause): Finding | null {
    const recurrence = extractRecurrence(c.body);
    if (!recurrence) return null;
    const named = this.findAttribute(c.body);
    // "actually, make that every Thursday": a correction of whatever schedule was said last.
    if (c.corrected && !named) return { kind: 'fact', attribute: LAST_MENTIONED, value: recurrence.value, confidence: 0.85 };
    const event = stripEdges(c.body.replace(recurrence.value, ' ').replace(FIRST_PERSON, ''), this.config.words.leadingFillers, [
      ...this.config.words.trailingParticles,
      'on',
      'at',
      'in',
      '在',
      '的',
      '有',
      '开',
    ]);
    const attribute =
      named && this.config.attributeKinds[named.slug] === 'fact' && /meeting|standup/.test(named.slug)
        ? named.slug
        : event
          ? `schedule:${slugify(event)}`
          : 'schedule';
    return { kind: 'fact', attribute, value: recurrence.value, confidence: 0.8 };
  }

  private decision(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.plans.decision);
    if (!cue) return null;
    const rest = c.body.slice(cue.end);
    const product = this.objectProducts(rest)[0];
    const named = this.findAttribute(rest);
    if (product) {
      const attribute = named?.slug ?? product.entry.category;
      return { kind: 'decision', attribute, value: product.entry.name, confidence: 0.85 };
    }
    const value = this.clean(rest);
    // "好，就这么定了": an acknowledgement, not a decision about anything.
    if ((value.match(/[\p{L}\p{N}]/gu) ?? []).length < 2 || this.isNotEntity(value)) return null;
    return { kind: 'decision', attribute: `decision:${slugify(value)}`, value, confidence: 0.8 };
  }

  // -- preferences --

  private dislike(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.preferences.dislike);
    if (!cue) return null;
    const object = this.clean(c.body.slice(cue.end));
    if (!object) return null;
    return {
      kind: 'preference',
      attribute: `preference:${this.objectKey(object)}`,
      value: 'dislike',
      confidence: 0.8,
      importance: 0.65,
    };
  }

  private like(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.preferences.like) ?? findCue(c.body, this.config.preferences.habit);
    if (!cue) return null;
    const rest = c.body.slice(cue.end);
    const favourite = /^\s*(?<what>.{1,20}?)\s*(?:is|are|是)\s*(?<value>.+)$/iu.exec(rest);
    if (/favou?rite|最喜欢的/iu.test(cue.cue) && favourite?.groups) {
      const slug = this.findAttribute(favourite.groups.what)?.slug ?? `favorite:${slugify(favourite.groups.what)}`;
      return { kind: 'preference', attribute: slug, value: this.valueFor(slug, favourite.groups.value), confidence: 0.85 };
    }
    const object = this.clean(rest);
    if (!object) return null;
    const product = findCatalog(object, this.config.catalog)[0];
    if (product && product.index === 0) {
      // Tools one uses one of (editor, OS) are single-valued; a favourite language is kept apart
      // from the team's language, which is a fact about the project, not a taste.
      const category = product.entry.category;
      const attribute = this.config.attributeKinds[category] === 'preference' ? category : `preferred_${category}`;
      return { kind: 'preference', attribute, value: product.entry.name, confidence: 0.85 };
    }
    const habit = this.config.preferences.habit.some((h) => h.toLowerCase() === cue.cue.toLowerCase());
    return {
      kind: 'preference',
      attribute: `preference:${this.objectKey(object)}`,
      value: habit ? 'habit' : 'like',
      confidence: 0.75,
    };
  }

  // -- tasks, statements, explicit notes --

  private task(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.plans.task);
    if (!cue) return null;
    const value = this.clean(c.body.slice(cue.end));
    if (!value || [...value].length < 2) return null;
    return { kind: 'task', attribute: `task:${slugify(value)}`, value, confidence: 0.75 };
  }

  /** "数据库用 PostgreSQL", "our stack is NestJS", "we use Redis as a cache", "我们用 Kafka". */
  private statement(c: Clause): Finding[] | Finding | null {
    const viaUse =
      /(?:^|\s)(?:use|are using|'re using|run|run on|are on|'re on|deploy on)\s+(?<value>.+?)\s+(?:as|for)\s+(?:our|the|my|a|an)?\s*(?<attr>.+)$/iu.exec(
        c.body,
      ) ?? /用\s*(?<value>.+?)\s*(?:做|作为|当|来做)(?<attr>.+)$/u.exec(c.body);
    if (viaUse?.groups) {
      const slug = this.findAttribute(viaUse.groups.attr)?.slug ?? this.productCategory(viaUse.groups.value);
      if (slug) return this.statementFinding(slug, this.valueFor(slug, viaUse.groups.value));
    }
    const named = this.findAttribute(c.body);
    if (named) {
      const trailing = c.body.slice(named.end).replace(/^\s*(?:的|'s)?\s*/u, '');
      // "my position now is …": the adverb sits between the attribute and its copula.
      const now = findCue(trailing, this.config.words.nowAdverbs);
      const after = now && now.index === 0 ? trimClause(trailing.slice(now.end)) : trailing;
      const copula = findCue(after, this.config.words.copulas);
      if (copula && copula.index === 0) return this.statementFinding(named.slug, this.valueFor(named.slug, after.slice(copula.end)));
    }
    const possessive =
      /^(?:我的|我们的|咱们的)\s*(?<attr>[^，,]{1,12}?)\s*(?:是|用的是|用|叫|:|：)\s*(?<value>.+)$/u.exec(c.body) ??
      /^(?:my|our)\s+(?<attr>[^,]{1,30}?)\s*(?::|\s(?:is|are|was|will be)\s)\s*(?<value>.+)$/iu.exec(c.body);
    if (possessive?.groups) {
      const slug = slugify(possessive.groups.attr);
      const products = findCatalog(possessive.groups.value, this.config.catalog);
      // "our backend is written in Go": the product is the value, not the phrase around it.
      const value = products.length === 1 ? products[0].entry.name : this.clean(possessive.groups.value);
      if (slug) return this.statementFinding(slug, value);
    }
    return this.productsInUse(c);
  }

  /** "我们项目用的是 NestJS 和 MongoDB": one fact per product, each filling its own category. */
  private productsInUse(c: Clause): Finding[] {
    const uses = /(?:用|使用|在用|采用|\buse\b|\busing\b|\bare on\b|'re on\b|\bruns? on\b|\bswitched to\b)/iu.exec(c.body);
    if (!uses) return [];
    const seen = new Set<string>();
    return this.objectProducts(c.body.slice(uses.index + uses[0].length))
      .filter((p) => !seen.has(p.entry.category) && seen.add(p.entry.category))
      .map((p) => this.statementFinding(p.entry.category, p.entry.name))
      .filter((f): f is Finding => f !== null);
  }

  /**
   * The products a verb takes as its object: the first one right after it and those joined to it
   * ("用 NestJS 和 MongoDB"). In "决定用 Debezium 读 Oracle 的 LogMiner", Oracle is what is read, not
   * what is used, so it is not the database.
   */
  private objectProducts(rest: string): ReturnType<typeof findCatalog> {
    const objects: ReturnType<typeof findCatalog> = [];
    let at = 0;
    for (const product of findCatalog(rest, this.config.catalog)) {
      const gap = rest.slice(at, product.index);
      if (!/^[\s,，、+&/]*(?:(?:和|与|跟|加|及|以及|还有|或者|或|and|or|plus|the|a|an|用|使用|的是|是|to|on|with)\s*)*$/iu.test(gap)) break;
      objects.push(product);
      at = product.end;
    }
    return objects;
  }

  private statementFinding(attribute: string, value: string): Finding | null {
    // "我的手机号是[PHONE]": the masked value is gone, and a placeholder is not worth remembering.
    if (!value || /^\[[A-Z_]+\]$/.test(value)) return null;
    return { kind: this.kindOf(attribute, 'fact'), attribute, value, confidence: 0.8 };
  }

  /** "记住 X" where X matched no rule: still worth keeping, as a note in the user's words. */
  private remembered(c: Clause): Finding | null {
    if (!c.remembered) return null;
    const value = this.clean(c.body);
    return value ? { kind: 'fact', attribute: `note:${slugify(value)}`, value, confidence: 0.9 } : null;
  }

  // -- the assistant --

  private recommendation(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.assistant.recommendation);
    if (!cue) return null;
    const rest = c.body.slice(cue.end);
    const object = stripEdges(rest.replace(/^\s*(?:你|您|you)\s*/iu, ''), this.config.words.leadingFillers, []);
    const title = extractQuoted(rest)[0] ?? this.recommendedThing(object);
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
  private recommendedThing(object: string): string | null {
    const quoted = extractQuoted(object)[0];
    if (quoted) return quoted;
    const product = findCatalog(object, this.config.catalog)[0];
    if (product) return product.entry.name;
    const cut = object.split(/[，,。]|因为|because|since|—|-\s/iu)[0];
    const head = /的([^的]{2,12})$/u.exec(this.clean(cut));
    if (head) return this.clean(head[1]);
    const proper = extractProperNouns(cut, this.config.words)[0];
    if (proper) return proper;
    const value = this.clean(cut);
    return [...value].length >= 2 ? value : null;
  }

  private promise(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.assistant.promise);
    const value = cue ? this.clean(c.body.slice(cue.end)) : '';
    if (!value) return null;
    return { kind: 'task', subject: 'assistant', attribute: `promise:${slugify(value)}`, value, confidence: 0.8 };
  }

  private conclusion(c: Clause): Finding | null {
    const cue = findCue(c.body, this.config.assistant.conclusion);
    const value = cue ? this.clean(c.body.slice(cue.end)) : '';
    if (!value) return null;
    return { kind: 'fact', subject: 'assistant', attribute: `conclusion:${slugify(value)}`, value, confidence: 0.75 };
  }

  // -- helpers --

  private isQuestion(raw: string): boolean {
    if (/[?？]\s*$/u.test(raw)) return true;
    const bare = trimPunctuation(raw);
    if (this.config.clauses.questionEndings.some((e) => bare.endsWith(e))) return true;
    const start = findCue(this.stripConnectors(bare), this.config.clauses.question);
    return start !== null && start.index === 0;
  }

  private isRequest(body: string): boolean {
    const cue = findCue(body, this.config.clauses.request);
    return cue !== null && cue.index <= 1;
  }

  private stripConnectors(text: string): string {
    let rest = trimClause(text);
    for (let lead = stripLead(rest, this.config.clauses.connectors); lead.matched; lead = stripLead(rest, this.config.clauses.connectors)) {
      rest = lead.rest;
    }
    return rest;
  }

  /** "我老婆不吃香菜", "my wife is allergic to nuts": the fact belongs to the person named. */
  private thirdParty(body: string): { subject: string; body: string } | null {
    // "Jess's birthday is October 3rd": a named person's fact, not the user's.
    const named = /^([A-Z][\p{L}-]+)['’]s\s+/u.exec(body);
    if (named && !this.isNotEntity(named[1]) && named[0].length < body.length) {
      return { subject: slugify(named[1]), body: body.slice(named[0].length) };
    }
    for (const { subject, han, startsWithWo, re } of relationsOf(this.config.identity.relations)) {
      const zhOrMy = han ? /^我/u.test(body) || startsWithWo : /^my\s/iu.test(body);
      const m = zhOrMy ? re.exec(body) : null;
      if (m && m[0].length < body.length) return { subject, body: body.slice(m[0].length) };
    }
    return null;
  }

  private findAttribute(text: string): { slug: string; index: number; end: number } | null {
    let best: { slug: string; index: number; end: number } | null = null;
    for (const [slug, words] of Object.entries(this.config.words.attributes)) {
      const m = findCue(text, words);
      if (m && (!best || m.index < best.index || (m.index === best.index && m.end > best.end))) {
        best = { slug, index: m.index, end: m.end };
      }
    }
    return best;
  }

  private productCategory(text: string): string | null {
    return findCatalog(text, this.config.catalog)[0]?.entry.category ?? null;
  }

  /** What a bare value is about, from its shape: 五万 → budget, Kafka → message_queue, 周五 → deadline. */
  private inferAttribute(raw: string, money: boolean): string | null {
    // "改成周一三五晚上": a new schedule for whatever schedule was said last (the resolver finds it by shape).
    if (extractRecurrence(raw)) return LAST_MENTIONED;
    if (money && extractAmount(raw)) return 'budget';
    const product = this.productCategory(raw);
    if (product) return product;
    return extractDate(raw) ? 'deadline' : null;
  }

  /** The value in the shape its attribute expects, canonical where a product is known. */
  private valueFor(attribute: string, raw: string, money = true): string {
    if (attribute === LAST_MENTIONED) {
      return extractRecurrence(raw)?.value ?? (money ? extractAmount(raw) : null) ?? extractDate(raw) ?? this.clean(raw);
    }
    if (attribute === 'budget') return extractAmount(raw) ?? this.clean(raw);
    if (attribute === 'deadline' || attribute.startsWith('deadline:')) return extractDate(raw) ?? this.clean(raw);
    if (attribute === 'weekly_meeting' || attribute === 'standup') {
      return extractRecurrence(raw)?.value ?? extractDate(raw) ?? this.clean(raw);
    }
    const products = findCatalog(raw, this.config.catalog);
    const fitting = products.find((p) => p.entry.category === attribute || `preferred_${p.entry.category}` === attribute);
    if (fitting) return fitting.entry.name;
    return canonicalProduct(this.clean(raw), this.config.catalog);
  }

  private clean(raw: string): string {
    return stripEdges(raw, this.config.words.leadingFillers, this.config.words.trailingParticles);
  }

  /**
   * The key part of a preference's object: "coffee after 3pm" and "coffee" are both about coffee,
   * so a later "I drink coffee again" lands on the same memory.
   */
  private objectKey(object: string): string {
    const head = object.split(/\s+(?:after|before|at|in|on|during|when|for|with|because|than|over|instead)\s+|比/iu)[0];
    const product = findCatalog(head, this.config.catalog)[0];
    return slugify(product ? product.entry.name : this.clean(head)) || slugify(object);
  }

  private importanceOf(finding: Finding): number {
    return finding.importance ?? this.config.attributeImportance[finding.attribute] ?? IMPORTANCE[finding.kind];
  }

  private kindOf(attribute: string, fallback: MemoryKind): MemoryKind {
    return this.config.attributeKinds[attribute] ?? fallback;
  }

  private hasRoleSuffix(text: string): boolean {
    return findCue(text, this.config.identity.roleSuffixes) !== null;
  }

  private isNotEntity(word: string): boolean {
    return this.config.words.notEntities.some((w) => w.toLowerCase() === word.toLowerCase());
  }

  entities(content: string, extra: readonly string[]): string[] {
    const products = findCatalog(content, this.config.catalog).map((p) => p.entry.name);
    return uniqueCaseless([
      ...extra,
      ...products,
      ...extractQuoted(content),
      ...extractProperNouns(content, this.config.words).filter(
        (noun) => !products.some((p) => p.toLowerCase() === noun.toLowerCase()) && !content.includes(`[${noun}]`),
      ),
    ]);
  }
}

/** Only separators come off a clause's edges: closing quotes and brackets belong to the content. */
function trimClause(raw: string): string {
  return raw.replace(/^[\s,，。.;；:：!！、]+|[\s,，。.;；:：!！、]+$/gu, '');
}

/** Whether a bare value has a shape a resolver can match (amount, schedule, date, time) or is words. */
function valueShapeOf(value: string): 'text' | 'shaped' {
  const bare = value.trim();
  if (amountToNumber(bare) !== null || extractRecurrence(bare)?.value === bare || extractDate(bare) === bare || isTimeOfDay(bare))
    return 'shaped';
  return 'text';
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
