import { BadRequestException, Inject, Injectable, Logger } from '@nestjs/common';
import { ConsistencyOptions, RecallOptions } from '@engram/config';
import { deterministicId, MemoriesAccessed, MemoryRecord, newEvent, Topics } from '@engram/contracts';
import {
  AssembledContext,
  assembleContext,
  dropCovered,
  expandQuery,
  fuse,
  matchesRecallFilter,
  narrowsBeyondKinds,
  RankedMemory,
  rankMemories,
  RecallFilter,
  speakersOf,
  summaryLines,
  summaryMergeKey,
  tokenize,
  understandQuery,
  ZoneBudget,
} from '@engram/domain';
import { AccessStore, Clock, Embedder, FactStore, SearchFilter, SearchIndex, SessionStore, SessionTurn } from '@engram/ports';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { EventPublisher } from '../pipeline/event-publisher';
import { pastViews, recallOver } from './as-of-recall';
import { RecallAudit } from './recall-audit';
import { recallFilterOf } from './recall-filter-of';
import { decodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import type { FactView, MemoryView, RecallDebugView, RecallDto, RecallResponse, RecentTurnView } from './recall.dto';

/**
 * The read side: pinned facts, then hybrid-retrieved memories reranked by
 * relevance, decay, importance and confidence, then the session's recent
 * turns, within a token budget. Nothing is written on this path; access
 * statistics travel as events.
 */
@Injectable()
export class RecallService {
  private readonly log = new Logger(RecallService.name);

  constructor(
    @Inject(RecallOptions) private readonly recallOptions: RecallOptions,
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    private readonly aliasTables: EntityAliases,
    private readonly progress: PipelineProgress,
    private readonly publisher: EventPublisher,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(SearchIndex) private readonly search: SearchIndex,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(Embedder) private readonly embedder: Embedder,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(AccessStore) private readonly access: AccessStore,
    private readonly audit: RecallAudit,
  ) {}

  async recall(tenantId: string, request: RecallDto): Promise<RecallResponse> {
    if (request.from && request.to && Date.parse(request.from) >= Date.parse(request.to)) {
      throw new BadRequestException({ message: ['to must be after from'], fields: ['to'] });
    }
    let consistent = true;
    if (request.after !== undefined) {
      const position = decodePosition(request.after);
      // A position past the log's end would only wait out the timeout: it was never returned by POST /v1/turns.
      if (!position || !(await this.progress.issued(position))) {
        throw new BadRequestException({ message: ['after must be a position returned by POST /v1/turns'], fields: ['after'] });
      }
      consistent = await this.progress.waitFor(position, this.consistency.afterTimeoutMs);
    }
    const asOf = request.asOf ? new Date(request.asOf) : null;
    const validAt = request.validAt ? new Date(request.validAt) : null;
    const now = request.now ? new Date(request.now) : (validAt ?? asOf ?? this.clock.now());
    const k = request.k ?? this.recallOptions.k;
    const { userId } = request;
    // Entity normalisation: "甲骨文数据库" also searches "Oracle" (configured and learned aliases).
    // Every memory (all statuses, with history) only for a look into the past; the learned aliases are kept per user.
    const lookBack = asOf !== null || validAt !== null;
    const known = lookBack ? await this.facts.list({ tenantId, userId }) : null;
    const learned = known
      ? { table: this.aliasTables.forMemories(known), memories: known }
      : await this.aliasTables.ofUser(this.facts, tenantId, userId);
    const aliases = learned.table;
    const query = expandQuery(request.query, aliases);
    const filter = await this.filterOf(tenantId, userId, request);
    const options = { embedder: this.embedder, ranking: this.recallOptions.ranking, limit: this.recallOptions.candidates, aliases };
    const past = known ? await recallOver(pastViews(known, asOf, validAt, filter), query, now, options) : null;

    const [pinned, ranked, recentNow] = await Promise.all([
      past
        ? past.pinned
        : // Derived from the user's memories when they were read anyway (no cached aliases), else one small query.
          (learned.memories?.filter((memory) => memory.pinned && memory.status === 'active') ??
          this.facts.list({ tenantId, userId, pinned: true, statuses: ['active'] })),
      past ? past.ranked : this.retrieve(tenantId, userId, query, now, filter),
      request.sessionId && this.recallOptions.recentTurns > 0
        ? lookBack
          ? this.sessions
              .recent(tenantId, userId, request.sessionId, this.recallOptions.recentTurns)
              .then((turns) => ({ summary: null, recent: turns }))
          : this.sessionContext(tenantId, userId, request.sessionId, now)
        : Promise.resolve({ summary: null, recent: [] }),
    ]);
    // Turns said after the instant looked at were not there yet.
    const until = Math.min(asOf?.getTime() ?? Infinity, validAt?.getTime() ?? Infinity);
    const recent = recentNow.recent.filter((turn) => Date.parse(turn.occurredAt) <= until);
    const summary = recentNow.summary;
    const shown = filter ? pinned.filter((memory) => matchesRecallFilter(memory, filter)) : pinned;
    // Procedures are pinned like the facts but have a section of their own. The episode of a turn that
    // said a rule stays searchable: the turn may say more than the rule ("I prefer type hints… so keep
    // that in mind when you write snippets"), and dropping it cost the shipped eval a question.
    const procedures = shown.filter((memory) => memory.kind === 'procedure');

    const offered = {
      facts: shown.filter((memory) => memory.kind !== 'procedure'),
      procedures,
      memories: ranked.slice(0, k),
      summary: summary ? summaryLines(summary.memory) : [],
      recent,
    };
    const assembled = assembleContext({
      ...offered,
      ...this.budgetOf(request),
      query: request.query,
      cap: this.recallOptions.memoryCap,
      now,
    });
    this.audit.record(tenantId, request, assembled);
    // A look into the past is not a use of today's memories: it must not keep them from being archived.
    if (!lookBack) {
      const used = [...assembled.facts, ...assembled.procedures].map((f) => f.memoryId);
      if (summary && assembled.summary.length > 0) used.push(summary.memory.memoryId);
      this.recordAccess(tenantId, userId, [...used, ...assembled.memories.map((m) => m.memory.memoryId)], now);
    }

    return {
      facts: assembled.facts.map(toFactView),
      procedures: assembled.procedures.map(toFactView),
      memories: assembled.memories.map((m) => toMemoryView(m, request.debug === true)),
      summary:
        summary && assembled.summary.length > 0
          ? { sessionId: summary.sessionId, previous: summary.previous, lines: assembled.summary }
          : null,
      recent: assembled.recent.map(toRecentView),
      context: assembled.context,
      tokens: assembled.tokensUsed,
      consistent,
      ...(request.debug === true ? { debug: budgetCut(offered, assembled) } : {}),
    };
  }

  /** The request's kinds, sessions (as the turn ids they hold) and time window; null when it narrows nothing. */
  private filterOf(tenantId: string, userId: string, request: RecallDto): Promise<RecallFilter | null> {
    return recallFilterOf(request, { turnIdsOf: (sessions) => this.sessions.turnIds(tenantId, userId, sessions) });
  }

  /**
   * What the session said before its recent window: its summary, and the turns it does not cover
   * (the window, plus those that left it since the summary was last re-derived). A session that has
   * no summary yet starts with the previous session's summary and last turns (carried over).
   */
  private async sessionContext(tenantId: string, userId: string, sessionId: string, now: Date): Promise<SessionContext> {
    const every = this.recallOptions.summaryEvery;
    const window = this.recallOptions.recentTurns + Math.max(0, every - 1);
    const [turns, own] = await Promise.all([
      this.sessions.recent(tenantId, userId, sessionId, window),
      this.summaryOf(tenantId, userId, sessionId),
    ]);
    if (own) return { summary: { memory: own, sessionId, previous: false }, recent: uncovered(turns, own) };
    const carry = this.recallOptions.carryOverTurns;
    if (every <= 0 && carry <= 0) return { summary: null, recent: turns };
    const previous = await this.sessions.previousSession(tenantId, userId, sessionId, turns[0]?.occurredAt ?? now.toISOString());
    if (!previous) return { summary: null, recent: turns };
    const [earlier, theirs] = await Promise.all([
      carry > 0 ? this.sessions.recent(tenantId, userId, previous, window) : Promise.resolve([]),
      this.summaryOf(tenantId, userId, previous),
    ]);
    const carried = carry > 0 ? uncovered(earlier, theirs).slice(-carry) : [];
    return { summary: theirs ? { memory: theirs, sessionId: previous, previous: true } : null, recent: [...carried, ...turns] };
  }

  private async summaryOf(tenantId: string, userId: string, sessionId: string): Promise<MemoryRecord | undefined> {
    if (this.recallOptions.summaryEvery <= 0) return undefined;
    const [summary] = await this.facts.findByMergeKeys(tenantId, userId, [summaryMergeKey(sessionId)]);
    return summary?.status === 'active' ? summary : undefined;
  }

  /** The request's budget by zone, each zone it leaves out at its configured share. */
  private budgetOf(request: RecallDto): { tokenBudget: number; zones: ZoneBudget } {
    const asked = request.budget ?? {};
    return {
      tokenBudget: asked.total ?? this.recallOptions.tokenBudget,
      zones: {
        facts: asked.facts ?? this.recallOptions.budget.facts,
        procedures: asked.procedures ?? this.recallOptions.budget.procedures,
        memories: asked.memories ?? this.recallOptions.budget.memories,
        summary: asked.summary ?? this.recallOptions.budget.summary,
        recent: asked.recent ?? this.recallOptions.budget.recent,
      },
    };
  }

  /**
   * BM25 and kNN candidates for this user only, fused, steered by what the question asks for, reranked.
   * A filter is applied inside the index, before the candidate limit: kinds as such, sessions and
   * time as the ids of the user's memories that match them (read from the fact store).
   */
  private async retrieve(tenantId: string, userId: string, query: string, now: Date, filter: RecallFilter | null): Promise<RankedMemory[]> {
    const limit = this.recallOptions.candidates;
    const legs = this.recallOptions.legs;
    const terms = tokenize(query);
    const within: SearchFilter = {
      ...(filter?.kinds ? { kinds: filter.kinds } : {}),
      ...(filter && narrowsBeyondKinds(filter)
        ? {
            memoryIds: (await this.facts.list({ tenantId, userId, statuses: ['active'] }))
              .filter((memory) => !memory.pinned && matchesRecallFilter(memory, filter))
              .map((memory) => memory.memoryId),
          }
        : {}),
    };
    const [textHits, vectorHits] = await Promise.all([
      legs === 'knn' ? [] : this.search.searchText({ tenantId, userId, terms, limit, ...within }),
      legs === 'bm25'
        ? []
        : this.embedder
            .embed([query], 'query')
            .then(([vector]) => this.search.searchVector({ tenantId, userId, vector, limit, ...within })),
    ]);
    const fused = fuse(textHits, vectorHits, this.recallOptions.ranking.rrfK);
    if (fused.size === 0) return [];
    const ids = [...fused.keys()];
    // Access stats are a projection of recall's own events: reading them is not a write on this path.
    const [memories, used] = await Promise.all([this.facts.get(tenantId, userId, ids), this.access.get(tenantId, userId, ids)]);
    const candidates = memories
      // Pinned facts are already in the facts section; the index may lag the store, so re-check status (and the filter) here.
      .filter((memory: MemoryRecord) => memory.status === 'active' && !memory.pinned && (!filter || matchesRecallFilter(memory, filter)))
      .map((memory) => ({ memory, fusion: fused.get(memory.memoryId)!, access: used.get(memory.memoryId) }));
    const asked = understandQuery(query, now, speakersOf(candidates.map((c) => c.memory)));
    // A memory whose source turns a better-ranked one already brings (a fact and its episode) adds nothing.
    return dropCovered(rankMemories(candidates, now, this.recallOptions.ranking, asked));
  }

  private recordAccess(tenantId: string, userId: string, memoryIds: string[], at: Date): void {
    if (memoryIds.length === 0) return;
    const accessedAt = this.clock.now().toISOString();
    const eventId = deterministicId('access', tenantId, userId, accessedAt, ...memoryIds);
    const event: MemoriesAccessed = newEvent<MemoriesAccessed>({
      eventId,
      type: 'MemoriesAccessed',
      tenantId,
      userId,
      occurredAt: accessedAt,
      recordedAt: accessedAt,
      payload: { memoryIds, accessedAt: at.toISOString() },
    });
    this.publisher.publish(Topics.access, [event]).catch((error: unknown) => {
      this.log.warn({ error: String(error) }, 'could not record memory access');
    });
  }
}

interface SessionContext {
  readonly summary: { readonly memory: MemoryRecord; readonly sessionId: string; readonly previous: boolean } | null;
  readonly recent: SessionTurn[];
}

/** The turns a summary does not cover (all of them without one). */
function uncovered(turns: readonly SessionTurn[], summary: MemoryRecord | undefined): SessionTurn[] {
  if (!summary) return [...turns];
  const covered = new Set(summary.sourceTurnIds);
  return turns.filter((turn) => !covered.has(turn.turnId));
}

/** Moved to the configuration library, where every option is mapped; re-exported for existing importers. */
export { rankingConfigFrom } from '@engram/config';

/** Tokens per zone, and what each zone was offered but the budget left out (recall's `debug`). */
function budgetCut(
  offered: { facts: MemoryRecord[]; procedures: MemoryRecord[]; memories: RankedMemory[]; summary: string[]; recent: SessionTurn[] },
  assembled: AssembledContext<SessionTurn>,
): RecallDebugView {
  const kept = (ids: readonly string[]) => new Set(ids);
  const facts = kept(assembled.facts.map((m) => m.memoryId));
  const procedures = kept(assembled.procedures.map((m) => m.memoryId));
  // As assembleContext does: a ranked memory that is also a pinned fact is offered in the facts zone only.
  const memories = kept(
    [...offered.facts, ...offered.procedures].map((m) => m.memoryId).concat(assembled.memories.map((m) => m.memory.memoryId)),
  );
  const recent = kept(assembled.recent.map((t) => t.turnId));
  return {
    zones: { ...assembled.zones },
    cut: {
      facts: offered.facts.filter((m) => !facts.has(m.memoryId)).map(toFactView),
      procedures: offered.procedures.filter((m) => !procedures.has(m.memoryId)).map(toFactView),
      memories: offered.memories.filter((m) => !memories.has(m.memory.memoryId)).map((m) => toMemoryView(m, true)),
      summaryLines: offered.summary.length - assembled.summary.length,
      recent: offered.recent.filter((t) => !recent.has(t.turnId)).map(toRecentView),
    },
  };
}

function toFactView(memory: MemoryRecord): FactView {
  return {
    id: memory.memoryId,
    kind: memory.kind,
    attribute: memory.attribute,
    value: memory.value,
    content: memory.content,
    sourceTurnIds: [...memory.sourceTurnIds],
    updatedAt: memory.updatedAt,
    version: memory.version,
  };
}

function toMemoryView({ memory, score, components }: RankedMemory, debug: boolean): MemoryView {
  return {
    id: memory.memoryId,
    kind: memory.kind,
    content: memory.content,
    score,
    sourceTurnIds: [...memory.sourceTurnIds],
    ...(memory.sources ? { sources: [...memory.sources] } : {}), // insights: what they are derived from
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
    version: memory.version,
    ...(debug ? { components: { ...components } } : {}),
  };
}

function toRecentView(turn: {
  turnId: string;
  sessionId: string;
  role: string;
  speaker?: string;
  text: string;
  occurredAt: string;
}): RecentTurnView {
  return {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    role: turn.role,
    ...(turn.speaker !== undefined ? { speaker: turn.speaker } : {}),
    text: turn.text,
    occurredAt: turn.occurredAt,
  };
}
