import {
  deterministicId,
  type MemoryAdded,
  type MemoryDecision,
  type MemoryRecord,
  type MemoryRetracted,
  type MemorySuperseded,
  type MemoryVersion,
  newEvent,
} from '@engram/contracts';
import type { Decider } from '../decider';
import { ResolutionDecider, type ResolverState } from '../resolution/resolution.decider';
import type { CompiledInsightRules, CompiledRule } from './insight-rules';
import { correctedTurns, enough, groupsMatched, type Support, supportOf } from './insight-support';
import { INSIGHT_KIND, isInsight } from './insight-memory';

export { isInsight } from './insight-memory';
export { compileInsightRules, type CompiledInsightRules } from './insight-rules';

/**
 * The insight layer: when several consistent memories point one way ("团队人少", "不想自己运维",
 * "云数据库太贵"), one derived memory says so ("偏好省心、免运维的托管服务"), linked to its sources
 * (`sources`: their memory ids; `sourceTurnIds`: the union of theirs), ranked above them, and
 * re-derived whenever they change.
 *
 * Emmett-style decider over the resolver's state: `decide(review, state, options) → decisions`, evolved with
 * `ResolutionDecider.evolve` (also its `evolve`). The resolver runs it after each event that changed a user's memories;
 * it is a pure function of the state and the rules, so a replay decides the same, with the same ids.
 *
 * Per rule:
 * - support = the user's active, non-insight memories about the user that hold one of the rule's
 *   cues and none of its exclusions (an episode only while its turn is not corrected, see
 *   `correctedTurns`); memories sharing a source turn (a fact and the episode of the turn that said
 *   it, or a fact said again) are one *statement*;
 * - enough statements (`minSupport`) covering enough cue groups (`minGroups`) and no insight yet →
 *   MemoryAdded; an insight whose source set changed → MemorySuperseded (version + 1, the old
 *   version with its sources into `history`); support fallen below the minimum (a source
 *   superseded, retracted, expired, archived) → MemoryRetracted, which keeps the sources it had;
 *   support back → the retracted insight is re-derived (MemorySuperseded, active again).
 * - An insight archived or expired by forgetting stays so until its source set changes.
 */
export interface InsightReview {
  readonly tenantId: string;
  readonly userId: string;
  /** The event the resolver just decided (an extraction, an import, a forgetting run). */
  readonly triggerId: string;
  readonly correlationId: string;
  /** World time of the trigger: when support changed, if no decision says better. */
  readonly occurredAt: string;
  /** The decisions that event produced: the one that changed a rule's support is the causation. */
  readonly changes: readonly MemoryDecision[];
}

export interface InsightOptions {
  readonly rules: CompiledInsightRules;
  readonly recordedAt: string;
}

/** Importance an insight gets at least (rules may set another), and how far above its sources it stays. */
export const INSIGHT_BASE_IMPORTANCE = 0.9;
const INSIGHT_IMPORTANCE_MARGIN = 0.1;
/** An insight is a summary, never certain: confidence stops here however many sources agree. */
export const INSIGHT_MAX_CONFIDENCE = 0.95;
/** Statements quoted in an insight's content (the newest), and characters per quote. */
const QUOTED_STATEMENTS = 5;
const QUOTE_MAX = 80;

export function insightMergeKey(ruleId: string): string {
  return `insight:${ruleId}`;
}

/** The state without insights: what the item resolver decides against (an insight is never the target of "that's no longer true"). */
export function withoutInsights(state: ResolverState): ResolverState {
  let any = false;
  for (const memory of state.values()) if (isInsight(memory)) any = true;
  if (!any) return state;
  return new Map([...state].filter(([, memory]) => !isInsight(memory)));
}

function decide(review: InsightReview, state: ResolverState, options: InsightOptions): MemoryDecision[] {
  const insights = new Map<string, MemoryRecord>();
  for (const memory of state.values()) if (isInsight(memory) && !insights.has(memory.mergeKey)) insights.set(memory.mergeKey, memory);
  const relevant = options.rules.rules.filter((compiled) =>
    touches(review.changes, compiled, insights.get(insightMergeKey(compiled.rule.id))),
  );
  if (relevant.length === 0) return [];
  const decisions: MemoryDecision[] = [];
  const memories = [...state.values()];
  const corrected = correctedTurns(memories);
  for (const compiled of relevant) {
    const decision = decideRule(review, compiled, memories, corrected, insights.get(insightMergeKey(compiled.rule.id)), options);
    if (decision) decisions.push(decision);
  }
  return decisions;
}

/**
 * Whether the event's decisions can change a rule's support, so that the rule needs deciding at
 * all: a changed memory the rule matches, one of its insight's sources, a memory that shares a turn
 * with those sources (correcting it takes the turn's episode out of the support; the resolver
 * usually retires that episode itself, which is a source change anyway), or the insight itself. Support changes only through such a memory, and after every decided event
 * an insight agrees with its support, so skipping the others decides exactly the same — at the cost
 * of a scan over all of the user's memories per event, which was most of the resolver's time. (A rule
 * added to the configuration is first derived when a memory it matches changes, or on reprocess.)
 */
function touches(changes: readonly MemoryDecision[], compiled: CompiledRule, insight: MemoryRecord | undefined): boolean {
  return changes.some(({ payload: { memory } }) => {
    if (isInsight(memory)) return memory.mergeKey === insightMergeKey(compiled.rule.id);
    if (groupsMatched(compiled, memory).length > 0) return true;
    if (!insight) return false;
    if (insight.sources?.includes(memory.memoryId)) return true;
    const turns = new Set(insight.sourceTurnIds);
    return [memory.sourceTurnIds, ...memory.history.map((v) => v.sourceTurnIds)].some((ids) => ids.some((turn) => turns.has(turn)));
  });
}

export const InsightDecider = {
  initialState: ResolutionDecider.initialState,
  decide,
  evolve: ResolutionDecider.evolve,
} as const satisfies Decider<InsightReview, ResolverState, MemoryDecision, InsightOptions>;

// ---- support -------------------------------------------------------------------------------

function decideRule(
  review: InsightReview,
  compiled: CompiledRule,
  memories: readonly MemoryRecord[],
  corrected: ReadonlySet<string>,
  existing: MemoryRecord | undefined,
  options: InsightOptions,
): MemoryDecision | null {
  const support = supportOf(compiled, memories, corrected);
  const ids = support.memories.map((m) => m.memoryId);
  const previous = existing?.sources ?? [];
  const changed = !sameSet(ids, previous);

  if (!enough(compiled, support)) {
    if (!existing || existing.status !== 'active') return null;
    const cause = causeOf(review, previous, ids);
    const retracted: MemoryRecord = {
      ...existing,
      status: 'retracted',
      validTo: later(existing.validFrom, cause.occurredAt),
      revision: existing.revision + 1,
      updatedAt: options.recordedAt,
    };
    return decision<MemoryRetracted>('MemoryRetracted', retracted, review, cause, options);
  }

  if (!existing) {
    const cause = causeOf(review, previous, ids);
    const memory = derived(review, compiled, support, cause, options);
    return decision<MemoryAdded>('MemoryAdded', memory, review, cause, options);
  }
  // Active and unchanged: nothing to say. Archived or expired by forgetting: stays so unless the
  // sources change. Retracted for lack of support: support is back, so it is derived again.
  if (!changed && existing.status !== 'retracted') return null;
  const cause = causeOf(review, previous, ids);
  const memory = rederived(existing, derived(review, compiled, support, cause, options), cause, options);
  return decision<MemorySuperseded>('MemorySuperseded', memory, review, cause, options);
}

interface Cause {
  readonly eventId: string;
  readonly occurredAt: string;
}

/** The decision that added or removed a source; else the trigger itself (a rule set that changed). */
function causeOf(review: InsightReview, before: readonly string[], after: readonly string[]): Cause {
  const touched = new Set([...before.filter((id) => !after.includes(id)), ...after.filter((id) => !before.includes(id))]);
  const change = review.changes.find((d) => touched.has(d.payload.memory.memoryId));
  return change ? { eventId: change.eventId, occurredAt: change.occurredAt } : { eventId: review.triggerId, occurredAt: review.occurredAt };
}

function decision<D extends MemoryDecision>(
  type: D['type'],
  memory: MemoryRecord,
  review: InsightReview,
  cause: Cause,
  options: InsightOptions,
): D {
  return newEvent<D>({
    eventId: deterministicId('insight-decision', review.tenantId, review.userId, memory.memoryId, memory.revision),
    type,
    tenantId: review.tenantId,
    userId: review.userId,
    occurredAt: type === 'MemoryRetracted' ? (memory.validTo ?? cause.occurredAt) : memory.validFrom,
    recordedAt: options.recordedAt,
    causationId: cause.eventId,
    correlationId: review.correlationId,
    payload: { memory, itemId: null },
  });
}

/** A fresh insight record from its support (version 1); `rederived` turns it into the next version of an existing one. */
function derived(review: InsightReview, compiled: CompiledRule, support: Support, cause: Cause, options: InsightOptions): MemoryRecord {
  const { rule } = compiled;
  const mergeKey = insightMergeKey(rule.id);
  const language = majorityLanguage(support.statements);
  const label = rule.label[language];
  const quotes = support.statements.slice(-QUOTED_STATEMENTS).map(quoteOf);
  const content = language === 'zh' ? `${label}（依据：${quotes.join('；')}）` : `${label} (based on: ${quotes.join('; ')})`;
  const sourceImportance = Math.max(...support.memories.map((m) => m.importance));
  const validFrom = latest(support.memories.map((m) => m.validFrom));
  return {
    tenantId: review.tenantId,
    userId: review.userId,
    // Created by the decision that brought support to the minimum: deterministic on replay, new
    // when a forgotten user comes back (as for every memory, see memoryIdOf).
    memoryId: deterministicId('memory', review.tenantId, review.userId, mergeKey, 'insight', cause.eventId),
    mergeKey,
    kind: INSIGHT_KIND,
    subject: 'user',
    attribute: mergeKey,
    value: label,
    content,
    entities: union(support.memories.flatMap((m) => m.entities)).slice(0, 20),
    confidence: confidenceOf(support.statements),
    importance: round(Math.min(1, Math.max(rule.importance ?? INSIGHT_BASE_IMPORTANCE, sourceImportance + INSIGHT_IMPORTANCE_MARGIN))),
    ephemeral: false,
    pinned: false,
    status: 'active',
    version: 1,
    revision: 1,
    mentionCount: support.statements.length,
    sourceTurnIds: union(support.memories.flatMap((m) => m.sourceTurnIds)),
    sources: support.memories.map((m) => m.memoryId),
    appliedItemIds: [],
    validFrom,
    validTo: null,
    createdAt: options.recordedAt,
    updatedAt: options.recordedAt,
    lastSeenAt: latest(support.memories.map((m) => m.lastSeenAt)),
    history: [],
  };
}

/** The next version of an insight: the current one (with its sources) into history, closed now. */
function rederived(existing: MemoryRecord, next: MemoryRecord, cause: Cause, options: InsightOptions): MemoryRecord {
  // The new version starts when its support changed (a source removed does not raise the newest
  // source's validFrom, the correction's instant does), never before the version it follows.
  const validFrom = latest([existing.validTo ?? existing.validFrom, next.validFrom, cause.occurredAt]);
  const previous: MemoryVersion = {
    version: existing.version,
    value: existing.value,
    content: existing.content,
    validFrom: existing.validFrom,
    validTo: existing.validTo ?? validFrom,
    recordedAt: existing.history[existing.history.length - 1]?.supersededAt ?? existing.createdAt,
    supersededAt: existing.status === 'active' ? options.recordedAt : existing.updatedAt,
    sourceTurnIds: existing.sourceTurnIds,
    ...(existing.sources ? { sources: existing.sources } : {}),
  };
  return {
    ...next,
    memoryId: existing.memoryId,
    createdAt: existing.createdAt,
    version: existing.version + 1,
    revision: existing.revision + 1,
    validFrom,
    history: [...existing.history, previous],
  };
}

/**
 * Noisy-OR with each statement counting for half its confidence (its most confident memory):
 * three statements at 0.8 give 0.78, five 0.92; capped at INSIGHT_MAX_CONFIDENCE.
 */
function confidenceOf(statements: readonly (readonly MemoryRecord[])[]): number {
  let doubt = 1;
  for (const statement of statements) doubt *= 1 - Math.max(...statement.map((m) => m.confidence)) / 2;
  return round(Math.min(INSIGHT_MAX_CONFIDENCE, 1 - doubt));
}

const HAN = /\p{Script=Han}/gu;
const LATIN = /[A-Za-z]/g;

/** Chinese when most statements are mostly Han characters; a tie goes to the newest statement. */
function majorityLanguage(statements: readonly (readonly MemoryRecord[])[]): 'zh' | 'en' {
  const languages = statements.map((s) => languageOf(quoteOf(s)));
  const zh = languages.filter((l) => l === 'zh').length;
  const en = languages.length - zh;
  if (zh !== en) return zh > en ? 'zh' : 'en';
  return languages[languages.length - 1] ?? 'en';
}

function languageOf(text: string): 'zh' | 'en' {
  const han = text.match(HAN)?.length ?? 0;
  const latin = text.match(LATIN)?.length ?? 0;
  // A Han character carries about a word; Latin letters come five or so to a word.
  return han * 4 >= latin && han > 0 ? 'zh' : 'en';
}

/** A statement in the user's words: the turn's episode when there is one, else its shortest memory. */
function quoteOf(statement: readonly MemoryRecord[]): string {
  const episode = statement.find((m) => m.kind === 'episode');
  const chosen = episode ?? [...statement].sort((a, b) => a.content.length - b.content.length || compare(a.memoryId, b.memoryId))[0];
  const text = chosen.content
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[。.!！?？；;，,\s]+$/u, '');
  return [...text].length > QUOTE_MAX ? `${[...text].slice(0, QUOTE_MAX - 1).join('')}…` : text;
}

// ---- helpers -------------------------------------------------------------------------------

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(b);
  return a.every((id) => set.has(id));
}

function union(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function latest(instants: readonly string[]): string {
  return instants.reduce((a, b) => later(a, b));
}

function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
