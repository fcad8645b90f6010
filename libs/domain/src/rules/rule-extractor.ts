import { findCue } from '../text/cue-matching';
import { mergeKeyOf, type ExtractedItemDraft, type ExtractionInput, type ExtractionStrategy } from '../extraction/extraction.strategy';
import { ClauseReader } from './clause-reader';
import { slugify, stripEdges } from '../text/text-values';
import { clausesOf, SENTENCE, trimClause, type Clause } from './clauses';
import { purchaseOf as purchaseIn } from './plans.rules';
import type { Finding } from './rule-context';
import { defaultRuleExtractorConfig, type RuleExtractorConfig } from './rule-extractor.config';

/**
 * The embedded extractor: bilingual rules, no model. A turn is split into clauses and each clause
 * yields at most one fact (a profile clause such as "I'm a backend engineer at Stripe" may yield
 * two: role and employer). The rules come in families (`*.rules.ts`: procedures, corrections,
 * identity, plans, preferences, facts, assistant), tried from the most specific to the most general
 * by `ClauseReader`; the first one that recognises the clause wins. Every word and pattern that is
 * one language's own is in the language packs (`lang/zh`, `lang/en`).
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
    clausesOf(sentence, config).flatMap((raw) => {
      const clause = reader.prepare(raw, input.role);
      if (!clause) return [];
      const findings = input.role === 'assistant' ? reader.readAssistant(clause) : reader.readUser(clause);
      // "跑步时间改了，天冷了，改成周一三五晚上…": an open correction's clause says nothing of what it
      // corrects; its sentence often does, and is what a later question is matched against.
      const about = (f: Finding) =>
        f.correction === 'open' && f.operation !== 'retract' ? { ...clause, content: trimClause(sentence) } : clause;
      const list = listAfterColon(raw, sentence, config);
      return findings.flatMap((f) => {
        if (f.accepts)
          return acceptedProposal(f, clause, input.previousText, config).map((a) => reader.toDraft(a.finding, a.clause, input));
        if (list && f.kind === 'decision') {
          return [reader.toDraft({ ...f, value: `${f.value}${list.rest}` }, { ...clause, content: list.whole }, input)];
        }
        return [reader.toDraft(f, about(f), input)];
      });
    }),
  );
  return dedupe(wholeTurnRules(scopeBudgets(drafts, input.text, config), input.text, config));
}

/**
 * "好，就按这个方案来", "OK, let's go with that plan", "就这么定了": a decision that only points at what
 * was just proposed decides that proposal — the turn before it, said by another party (`previousText`:
 * the assistant's "建议方案：第一步先迁移报表库…"). Its value is the proposal and its content says both,
 * so "就按上次说的办吧" days later finds the plan, not "好，就按这个方案来". Without that turn, a bare
 * "就这么定了" decides nothing and "就按这个方案来" stays as said.
 */
function acceptedProposal(
  finding: Finding,
  clause: Clause,
  previousText: string | undefined,
  config: RuleExtractorConfig,
): { finding: Finding; clause: Clause }[] {
  const { accepts: _accepts, ...decided } = finding;
  const proposal = previousText ? trimClause(previousText) : '';
  if (!proposal) return decided.value ? [{ finding: decided, clause }] : [];
  const value = trimClause(stripEdges(proposal, [], config.words.trailingParticles));
  return [
    {
      // Its line is not its turn's words: it is also found by its attribute's word, as its turn's episode is ("decision …").
      finding: { ...decided, attribute: `decision:${slugify(value)}`, value, keys: ['decision'] },
      clause: { ...clause, content: `${clause.content} — ${proposal}` },
    },
  ];
}

/**
 * "Let's settle the launch: beta on March 3, general availability on April 15", "就这么定了：周三上线灰度，
 * 周五全量": a decision that opens a list with a colon after its cue is said by the whole list, not by
 * its first item. The clause and the rest of its sentence (the list's other items, with the list's
 * own separator: "，" in Chinese); null when the clause has no colon after a decision cue or ends the
 * sentence. A colon before the cue is a lead ("Update: the deadline moved to …, finance needs more
 * time"), and what follows a recommendation's colon describes it: neither is a list of what was decided.
 */
function listAfterColon(clause: string, sentence: string, config: RuleExtractorConfig): { whole: string; rest: string } | null {
  const at = sentence.indexOf(clause);
  const cue = findCue(clause, config.plans.decision);
  const colon = /[:：]/u.exec(clause);
  if (at < 0 || !cue || !colon || colon.index < cue.end) return null;
  const after = sentence.slice(at + clause.length);
  const rest = trimClause(after);
  if (!rest) return null;
  const separator = after.slice(0, after.indexOf(rest)).trim() || ',';
  return { whole: trimClause(sentence.slice(at)), rest: `${separator}${/[,;]$/u.test(separator) ? ' ' : ''}${rest}` };
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
  const thing = purchaseIn(text, config);
  if (!thing) return drafts;
  return drafts.map((d) =>
    d.attribute === 'budget'
      ? { ...d, attribute: `budget:${thing}`, entities: d.entities.includes(thing) ? d.entities : [...d.entities, thing] }
      : d,
  );
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

/** What the turn says is being bought: the words after a purchase cue, up to the clause's end. */
export function purchaseOf(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string | null {
  return purchaseIn(text, config);
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
  return clausesOf(input.text, config).some((raw) => reader.prepare(raw, input.role) !== null);
}

/** Known products (canonical names) and proper nouns of a text: what it is found by besides its words. */
export function entitiesOf(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string[] {
  return new ClauseReader(config).entities(text);
}

/**
 * Splits a turn into clauses, keeping "不是三万，是五万" and "Actually, it's 50k" whole. Clauses are
 * spans of the original text, so content keeps the user's exact wording and punctuation.
 */
export function splitClauses(text: string, config: RuleExtractorConfig = defaultRuleExtractorConfig): string[] {
  return clausesOf(text, config);
}
