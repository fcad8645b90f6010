import type { ExtractedItemDraft, ExtractionInput } from '../extraction/extraction.strategy';
import { findCue } from '../text/cue-matching';
import { slugify, trimPunctuation } from '../text/text-values';
import { readAssistant } from './assistant.rules';
import { stripLead, trimClause, type Clause } from './clauses';
import { anaphoricCorrection, correction, retraction } from './corrections.rules';
import { remembered, statement } from './facts.rules';
import { constraint } from './constraints.rules';
import { allergy, name, profile } from './identity.rules';
import { alternation, firstMatch } from './patterns';
import { budget, deadline, decision, schedule, task } from './plans.rules';
import { dislike, like } from './preferences.rules';
import { procedure, procedureOf } from './procedures.rules';
import { RuleContext, type Finding, type Rule } from './rule-context';
import type { RuleExtractorConfig } from './rule-extractor.config';

/**
 * Reads clauses: takes off their leads (connectors, "remember", "actually"), finds whose they are
 * (the user's, or a relation's: "我老婆不吃香菜"), then tries the families' rules in order and turns
 * what the first that recognises the clause found into an item. Rules are tried from the most
 * specific (procedures, retractions, corrections) to the most general (statements, notes).
 */
export class ClauseReader {
  private readonly rules: RuleContext;

  constructor(private readonly config: RuleExtractorConfig) {
    this.rules = new RuleContext(config, (text) => {
      const clause = this.prepare(text, 'user');
      return clause ? { clause, findings: this.readUser(clause, true) } : null;
    });
  }

  prepare(raw: string, role: ExtractionInput['role']): Clause | null {
    const { clauses } = this.config;
    const content = trimClause(raw);
    if (!content || this.isQuestion(raw)) return null;
    let body = this.stripConnectors(content);
    const remember = this.stripRemember(body);
    body = this.stripConnectors(remember.rest);
    const correction = this.stripCorrectionLead(body);
    body = this.stripConnectors(correction.rest);
    if (!body) return null;
    if (role === 'user' && this.config.clauses.othersLead.some((re) => re.test(body))) return null;
    // "请用中文回答" opens like a request, but a standing one: a rule for the assistant, not this turn's ask;
    // "please send everything to 48 Elm Road from now on" says how things stand from now on.
    if (role === 'user' && !remember.matched && this.isRequest(body) && !procedureOf(body, this.config) && !this.isStanding(body))
      return null;
    const third = role === 'user' ? this.thirdParty(body) : null;
    return {
      content,
      body: third?.body ?? body,
      subject: third?.subject ?? (role === 'assistant' ? 'assistant' : 'user'),
      remembered: remember.matched,
      corrected: correction.matched,
      // "其实我也喜欢 Python" adds to what was said; it corrects nothing.
      retargets: correction.strong && findCue(body, clauses.additive) === null,
      emphasised: findCue(content, clauses.emphasis) !== null,
    };
  }

  /** What the user says about themselves (or about someone they name): the first rule that finds anything. */
  readUser(clause: Clause, nested = false): Finding[] {
    const rules: Rule[] = [
      procedure,
      (c, r) => retraction(c, r, nested),
      correction,
      constraint,
      allergy,
      name,
      profile,
      budget,
      deadline,
      schedule,
      decision,
      dislike,
      like,
      task,
      statement,
      anaphoricCorrection,
      remembered,
    ];
    for (const rule of rules) {
      const found = rule(clause, this.rules);
      if (found && (!Array.isArray(found) || found.length > 0)) return Array.isArray(found) ? found : [found];
    }
    return [];
  }

  /** The assistant's recommendations, promises and conclusions; nothing else it says is a fact. */
  readAssistant(clause: Clause): Finding[] {
    return readAssistant(clause, this.rules);
  }

  toDraft(finding: Finding, clause: Clause, input: ExtractionInput): ExtractedItemDraft {
    const boost = clause.remembered || clause.emphasised ? 0.15 : 0;
    const correction = finding.correction ?? (clause.retargets ? 'named' : undefined);
    const keys = [this.attributeWords(finding.attribute), ...(finding.keys ?? [])].filter((key): key is string => !!key).join(' ');
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
      entities: this.rules.entities(clause.content, finding.entities ?? []),
      confidence: round(confidence),
      importance: round(Math.min(1, this.rules.importanceOf(finding) + boost)),
      ephemeral: input.ephemeral,
      operation: finding.operation ?? 'assert',
      validFrom: input.occurredAt,
      sourceTurnIds: [input.turnId],
      ...(keys ? { keys: [keys] } : {}),
      ...(correction ? { correction } : {}),
    };
  }

  /** Known products and proper nouns of a text. */
  entities(text: string): string[] {
    return this.rules.entities(text, []);
  }

  /**
   * What a known attribute is called in both languages ("数据库 database db"): a search key of the
   * fact, so "我们用什么数据库" finds "不是MySQL，是PostgreSQL" and "which database" finds "数据库用 PG".
   */
  private attributeWords(attribute: string): string | null {
    const words = this.config.words.attributes[attribute.split(':')[0]];
    return words ? words.join(' ') : null;
  }

  /**
   * "记住…", and a remember cue after words that only stress it ("这条必须永远记住：我女儿对花生过敏",
   * "always remember that …"): the preamble goes with the cue, so it cannot become the subject.
   */
  private stripRemember(body: string): { rest: string; matched: boolean } {
    const { remember, rememberPreamble } = this.config.clauses;
    const direct = stripLead(body, remember);
    if (direct.matched) return direct;
    let rest = body;
    for (let lead = stripLead(rest, rememberPreamble); lead.matched; lead = stripLead(rest, rememberPreamble)) {
      rest = lead.rest;
    }
    const after = rest === body ? direct : stripLead(rest, remember);
    return after.matched ? after : { rest: body, matched: false };
  }

  /** "actually …", and "no, …" / "不对，…" where the lead stands on its own before a comma. */
  private stripCorrectionLead(body: string): { rest: string; matched: boolean; strong: boolean } {
    const { correctionLead, correctionAlone, weakCorrectionLead } = this.config.corrections;
    let rest = body;
    let matched = false;
    let strong = false;
    for (let round = 0; round < 2; round++) {
      const lead = findCue(rest, correctionLead);
      const alone = findCue(rest, correctionAlone);
      if (lead && lead.index === 0) {
        strong ||= findCue(lead.cue, weakCorrectionLead)?.end !== lead.cue.length;
        rest = this.stripConnectors(rest.slice(lead.end));
      } else if (alone && alone.index === 0 && /^\s*[,，。.!！;；:：]/u.test(rest.slice(alone.end))) {
        rest = this.stripConnectors(rest.slice(alone.end));
      } else break;
      matched = true;
    }
    // "These days I drive to work instead": a change of what was said, wherever that was.
    const bare = trimClause(rest);
    const tail = findCue(bare, this.config.corrections.correctionTail);
    if (tail && tail.end === bare.length && tail.index > 0 && /\s$/u.test(bare.slice(0, tail.index))) {
      return { rest: trimClause(bare.slice(0, tail.index)), matched: true, strong: true };
    }
    return { rest, matched, strong };
  }

  private isQuestion(raw: string): boolean {
    const { question, questionEndings } = this.config.clauses;
    if (/[?？]\s*$/u.test(raw)) return true;
    const bare = trimPunctuation(raw);
    if (questionEndings.some((e) => bare.endsWith(e))) return true;
    const start = findCue(this.stripConnectors(bare), question);
    return start !== null && start.index === 0;
  }

  private isStanding(body: string): boolean {
    return findCue(body, this.config.procedures.standing) !== null;
  }

  private isRequest(body: string): boolean {
    const cue = findCue(body, this.config.clauses.request);
    return cue !== null && cue.index <= 1;
  }

  private stripConnectors(text: string): string {
    const { connectors } = this.config.clauses;
    let rest = trimClause(text);
    for (let lead = stripLead(rest, connectors); lead.matched; lead = stripLead(rest, connectors)) {
      rest = lead.rest;
    }
    return rest;
  }

  /** "我老婆不吃香菜", "my wife is allergic to nuts": the fact belongs to the person named. */
  private thirdParty(body: string): { subject: string; body: string } | null {
    // "Jess's birthday is October 3rd": a named person's fact, not the user's.
    const named = firstMatch(this.config.identity.namedPossessive, body);
    // "Let's settle…", "Here's the plan": a contraction, not a person's name.
    const contraction = named !== null && this.rules.isNotEntity(`${named[1]}'s`);
    if (named && !contraction && !this.rules.isNotEntity(named[1]) && named[0].length < body.length) {
      return { subject: slugify(named[1]), body: body.slice(named[0].length) };
    }
    for (const { subject, applies, re } of relationPatterns(this.config)) {
      const m = applies(body) ? re.exec(body) : null;
      if (m && m[0].length < body.length) return { subject, body: body.slice(m[0].length) };
    }
    return null;
  }
}

const relationCache = new WeakMap<RuleExtractorConfig, { subject: string; applies: (body: string) => boolean; re: RegExp }[]>();

/**
 * "我老婆", "my wife": one compiled prefix per relation name, once per configuration. A name is tried
 * when the clause opens as its language opens one ("我…", "my …"), or when the name holds its owner ("我妈").
 */
function relationPatterns(config: RuleExtractorConfig) {
  let patterns = relationCache.get(config);
  if (!patterns) {
    const { relations, relationForms, relationOwners } = config.identity;
    const owners = alternation(relationOwners, '…', 'iu').source;
    const genitives = alternation(config.words.genitives, '…', 'iu').source;
    patterns = Object.entries(relations).flatMap(([subject, names]) =>
      names.map((name) => {
        const form = relationForms.find((f) => f.names.test(name));
        const owned = form?.owner !== undefined && name.startsWith(form.owner);
        const bare = owned && form?.owner ? name.slice(form.owner.length) : name;
        return {
          subject,
          applies: (body: string) => owned || (form?.opener.test(body) ?? false),
          re: new RegExp(`^(?:${owners})?${bare}(?:${genitives})?\\s*`, 'iu'),
        };
      }),
    );
    relationCache.set(config, patterns);
  }
  return patterns;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
