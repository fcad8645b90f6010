import type { MemoryRecord } from '@engram/contracts';
import type { Lexicon } from '@engram/ports';
import { speakersOf, understandQuery } from '../ranking/query-understanding';
import { dropCovered, fuse, RankedMemory, RankingCandidate, rankMemories } from '../ranking/ranking';
import type { RankingConfig } from '../ranking/ranking.config';
import { holdsAt } from '../forgetting/forgetting.decider';
import { summaryLines } from '../summaries/session-summary';
import { tokenize } from '../text/tokenizer';
import { assembleContext, CONTEXT_ZONES, ContextZone, MemoryLengthCap, RecentTurn } from './context-assembly';
import { followUpOf, withFollowUps, type FollowUp } from './follow-ups';
import type { RecallCandidates } from './recall-candidates';
import { matchesRecallFilter, RecallFilter } from './recall-filter';

/**
 * Recall, as one pure function: from the question, the candidates (today's index or the views of
 * the past, `recall-candidates.ts` and `past-candidates.ts`), the pinned memories and the session,
 * to the ranked, budgeted answer —
 *
 *   fuse → understand → rank → drop covered → assemble
 *
 * Both candidate sources go through every step, so a look into the past ranks exactly as today
 * does. What reads the stores, embeds and records the access is `RecallService`'s.
 */

/** What was asked. */
export interface RecallQuery {
  /** The question as asked: a memory too long for the context is cut around its terms. */
  readonly text: string;
  /** The question plus the names of the entities it mentions (`expandQuery`): what is searched and understood. */
  readonly expanded: string;
  /** Ranked memories offered to the context (the budget may take fewer). */
  readonly k: number;
  readonly filter: RecallFilter | null;
  /** A look into the past: as engram knew it then (transaction time), what was true then (world time). */
  readonly asOf: Date | null;
  readonly validAt: Date | null;
  /** The request's token budget, whole and by zone; what it leaves out is the configured one. */
  readonly budget?: RecallBudget;
}

export type RecallBudget = Readonly<Partial<Record<ContextZone | 'total', number>>>;

/** A recent turn of the session, as recall shows it. */
export type RecallTurn = RecentTurn & { readonly turnId: string };

/** The session's rolling summary (docs/memory-model.md §14): its own, or the previous session's for a new one. */
export interface SessionSummary {
  readonly memory: MemoryRecord;
  readonly sessionId: string;
  readonly previous: boolean;
}

/** What the session said before the question: its summary and the turns it does not cover. */
export interface RecallSession<TTurn extends RecallTurn> {
  readonly summary: SessionSummary | null;
  readonly recent: readonly TTurn[];
}

export interface RecallPipelineOptions {
  readonly ranking: RankingConfig;
  /** The configured budget, whole and by zone. */
  readonly tokenBudget: number;
  readonly zones: Readonly<Record<ContextZone, number>>;
  /** Longest a memory may be in the context. */
  readonly cap?: MemoryLengthCap;
  /** What Chinese words mean in English: a question's term counts as held by a memory that says it in the other language. */
  readonly lexicon?: Lexicon;
}

export interface RecallInput<TTurn extends RecallTurn> {
  readonly query: RecallQuery;
  readonly candidates: RecallCandidates;
  /** The user's pinned memories (facts and procedures), as the source holds them. */
  readonly pinned: readonly MemoryRecord[];
  readonly session: RecallSession<TTurn>;
  readonly options: RecallPipelineOptions;
  /** The instant ranking measures ages from (the request's `now`, else the instant looked at, else the clock's). */
  readonly now: Date;
  /** For a follow-up question (`followUpFor`): what it asks about, and the candidates of a search by its words. */
  readonly followUps?: { readonly followUp: FollowUp; readonly candidates: RecallCandidates } | null;
}

export interface RecallAnswer<TTurn extends RecallTurn> {
  readonly facts: MemoryRecord[];
  readonly procedures: MemoryRecord[];
  readonly memories: RankedMemory[];
  /** The summary's lines that fit, with whose summary it is; null when none is shown. */
  readonly summary: { readonly sessionId: string; readonly previous: boolean; readonly lines: string[] } | null;
  /** Oldest first. */
  readonly recent: TTurn[];
  readonly context: string;
  readonly tokens: number;
  /** Tokens each zone used. */
  readonly zones: Record<ContextZone, number>;
  /** What each zone was offered and the budget left out. */
  readonly cut: {
    readonly facts: MemoryRecord[];
    readonly procedures: MemoryRecord[];
    readonly memories: RankedMemory[];
    readonly summaryLines: number;
    readonly recent: TTurn[];
  };
  /** The memories the answer used, for the access event; none for a look into the past. */
  readonly used: string[];
}

export function recallPipeline<TTurn extends RecallTurn>(input: RecallInput<TTurn>): RecallAnswer<TTurn> {
  const { query, session, options, now } = input;
  const filter = query.filter;
  // Pinned memories come whatever the question, within the filter; procedures have a section of their own.
  // The episode of a turn that said a rule stays searchable: the turn may say more than the rule ("I prefer
  // type hints… so keep that in mind when you write snippets"), and dropping it cost the shipped eval a question.
  // What set its own time scope is out once the scope has ended at the instant asked about.
  const holds = (memory: MemoryRecord) => holdsAt(memory, now);
  const shown = input.pinned.filter((memory) => holds(memory) && (!filter || matchesRecallFilter(memory, filter)));
  const candidates = holding(input.candidates, now);
  const ranked = rankCandidates(query, candidates, options.ranking, now, options.lexicon);
  const followUps = input.followUps;
  const memories = followUps
    ? withFollowUps(ranked, followUps.followUp, holding(followUps.candidates, now), (text, found) =>
        rankByWords(text, found, options.ranking, now, options.lexicon),
      )
    : ranked;
  // Turns said after the instant looked at were not there yet.
  const until = Math.min(query.asOf?.getTime() ?? Infinity, query.validAt?.getTime() ?? Infinity);
  const offered = {
    facts: byQuestion(
      shown.filter((memory) => memory.kind !== 'procedure'),
      query.text,
    ),
    procedures: shown.filter((memory) => memory.kind === 'procedure'),
    memories: memories.slice(0, query.k),
    summary: session.summary ? summaryLines(session.summary.memory) : [],
    recent: session.recent.filter((turn) => Date.parse(turn.occurredAt) <= until),
  };
  const assembled = assembleContext({ ...offered, ...budgetOf(query.budget, options), query: query.text, cap: options.cap, now });
  const summary = session.summary && assembled.summary.length > 0 ? session.summary : null;

  // A look into the past is not a use of today's memories: it must not keep them from being archived.
  const lookBack = query.asOf !== null || query.validAt !== null;
  const used = lookBack
    ? []
    : [
        ...[...assembled.facts, ...assembled.procedures].map((memory) => memory.memoryId),
        ...(summary ? [summary.memory.memoryId] : []),
        ...assembled.memories.map((ranked) => ranked.memory.memoryId),
      ];
  return {
    facts: assembled.facts,
    procedures: assembled.procedures,
    memories: assembled.memories,
    summary: summary ? { sessionId: summary.sessionId, previous: summary.previous, lines: assembled.summary } : null,
    recent: assembled.recent,
    context: assembled.context,
    tokens: assembled.tokensUsed,
    zones: assembled.zones,
    cut: budgetCut(offered, assembled),
    used,
  };
}

/**
 * fuse → understand → rank → drop covered: the candidates the hits name, fused, steered by what
 * the question asks for (the speakers it names among the candidates', a time, the assistant's
 * words), ranked; then a memory whose source turns a better-ranked one already brings (a fact and
 * its episode) goes. Applied to the past views too: with it, `engram eval --as-of-end` comes
 * closer to the live answer (docs/memory-model.md §9).
 */
export function rankCandidates(
  query: Pick<RecallQuery, 'expanded'>,
  candidates: RecallCandidates,
  ranking: RankingConfig,
  now: Date,
  lexicon?: Lexicon,
): RankedMemory[] {
  const found = fusedCandidates(candidates, ranking);
  const asked = understandQuery(query.expanded, now, speakersOf(found.map((candidate) => candidate.memory)));
  return dropCovered(rankMemories(found, now, ranking, { ...asked, lexicon }));
}

/** The candidates ranked by how much they share with `text`, a statement rather than a question (a follow-up's referent). */
function rankByWords(text: string, candidates: RecallCandidates, ranking: RankingConfig, now: Date, lexicon?: Lexicon): RankedMemory[] {
  return dropCovered(rankMemories(fusedCandidates(candidates, ranking), now, ranking, { terms: tokenize(text), lexicon }));
}

function fusedCandidates(candidates: RecallCandidates, ranking: RankingConfig): RankingCandidate[] {
  const fused = fuse(candidates.textHits, candidates.vectorHits, ranking.rrfK);
  return candidates.memories
    .filter((memory) => fused.has(memory.memoryId))
    .map((memory) => ({ memory, fusion: fused.get(memory.memoryId)!, access: candidates.access?.get(memory.memoryId) }));
}

/**
 * For a follow-up question ("那个方案后来怎么样了", "how did it go"): what it asks about and the words
 * to search for what followed it (follow-ups.ts), from the question's own ranking; null for any
 * other question (and then nothing more is ranked). The caller searches and passes what it found as
 * `RecallInput.followUps`.
 */
export function followUpFor(
  query: Pick<RecallQuery, 'expanded'>,
  candidates: RecallCandidates,
  ranking: RankingConfig,
  now: Date,
  lexicon?: Lexicon,
): FollowUp | null {
  const reference = understandQuery(query.expanded, now).reference;
  if (!reference?.followUp) return null;
  return followUpOf(reference, rankCandidates(query, holding(candidates, now), ranking, now, lexicon));
}

/** What was said and still holds at the instant asked about (a memory past its time scope is out). */
function holding(candidates: RecallCandidates, now: Date): RecallCandidates {
  return { ...candidates, memories: candidates.memories.filter((memory) => holdsAt(memory, now)) };
}

/** The request's budget by zone, each zone it leaves out at its configured share. */
function budgetOf(asked: RecallBudget = {}, options: RecallPipelineOptions): { tokenBudget: number; zones: Record<ContextZone, number> } {
  const zones = {} as Record<ContextZone, number>;
  for (const zone of CONTEXT_ZONES) zones[zone] = asked[zone] ?? options.zones[zone];
  return { tokenBudget: asked.total ?? options.tokenBudget, zones };
}

/** What each zone was offered and did not get (recall's `debug`). */
function budgetCut<TTurn extends RecallTurn>(
  offered: {
    readonly facts: readonly MemoryRecord[];
    readonly procedures: readonly MemoryRecord[];
    readonly memories: readonly RankedMemory[];
    readonly summary: readonly string[];
    readonly recent: readonly TTurn[];
  },
  assembled: {
    readonly facts: readonly MemoryRecord[];
    readonly procedures: readonly MemoryRecord[];
    readonly memories: readonly RankedMemory[];
    readonly summary: readonly string[];
    readonly recent: readonly TTurn[];
  },
): RecallAnswer<TTurn>['cut'] {
  const facts = new Set(assembled.facts.map((m) => m.memoryId));
  const procedures = new Set(assembled.procedures.map((m) => m.memoryId));
  // As assembleContext does: a ranked memory that is also a pinned fact is offered in the facts zone only.
  const memories = new Set(
    [...offered.facts, ...offered.procedures].map((m) => m.memoryId).concat(assembled.memories.map((m) => m.memory.memoryId)),
  );
  const recent = new Set(assembled.recent.map((t) => t.turnId));
  return {
    facts: offered.facts.filter((m) => !facts.has(m.memoryId)),
    procedures: offered.procedures.filter((m) => !procedures.has(m.memoryId)),
    memories: offered.memories.filter((m) => !memories.has(m.memory.memoryId)),
    summaryLines: offered.summary.length - assembled.summary.length,
    recent: offered.recent.filter((t) => !recent.has(t.turnId)),
  };
}

/** The turns a summary does not cover (all of them without one): what the session shows after it. */
export function turnsNotSummarised<TTurn extends RecallTurn>(turns: readonly TTurn[], summary: MemoryRecord | undefined): TTurn[] {
  if (!summary) return [...turns];
  const covered = new Set(summary.sourceTurnIds);
  return turns.filter((turn) => !covered.has(turn.turnId));
}

/**
 * The pinned facts, those the question names first (by how many of its terms a fact holds, in its
 * words, its keys or its attribute), the others in the order given: when the facts zone is tight,
 * what the question is about is what stays.
 */
function byQuestion(facts: readonly MemoryRecord[], question: string): MemoryRecord[] {
  const asked = new Set(tokenize(question));
  if (asked.size === 0) return [...facts];
  const named = (memory: MemoryRecord) => {
    const words = [memory.content, memory.attribute.replace(/[_:-]+/g, ' '), ...(memory.keys ?? [])].join(' ');
    return new Set(tokenize(words).filter((term) => asked.has(term))).size;
  };
  return facts
    .map((memory, index) => ({ memory, index, named: named(memory) }))
    .sort((a, b) => b.named - a.named || a.index - b.index)
    .map((entry) => entry.memory);
}
