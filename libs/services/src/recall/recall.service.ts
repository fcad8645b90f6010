import { BadRequestException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ConsistencyOptions, RecallOptions } from '@engram/config';
import { deterministicId, MemoriesAccessed, MemoryRecord, newEvent, Topics } from '@engram/contracts';
import {
  embeddedText,
  EntityAliasTable,
  expandQuery,
  followUpFor,
  hitIds,
  indexCandidates,
  indexScope,
  lexiconTerms,
  narrowsBeyondKinds,
  NO_CANDIDATES,
  pastCandidates,
  pastViews,
  rankableViews,
  RecallCandidates,
  RecallFilter,
  recallPipeline,
  RecallQuery,
  RecallSession,
  searchedText,
  termsInDictionaryForm,
  turnsNotSummarised,
} from '@engram/domain';
import {
  AccessStore,
  Clock,
  DependencyUnavailableError,
  Embedder,
  FactStore,
  Lexicon,
  SearchIndex,
  SessionStore,
  SessionTurn,
  unavailableDependency,
} from '@engram/ports';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { EventPublisher } from '../pipeline/event-publisher';
import { RecallAudit } from './recall-audit';
import { recallFilterOf } from './recall-filter-of';
import { decodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import type { RecallDegradation, RecallDto, RecallResponse } from './recall.dto';
import { recallResponse } from './recall.views';
import { activeSummary, GatheredFactReads, stillCurrent, type UserFactReader } from './user-facts';

/**
 * The read side's I/O around the recall pipeline (`recallPipeline`, libs/domain/src/recall): waits
 * for `after`, reads the candidates — from the search index, or for a look into the past the
 * user's memories as they stood, scored in memory — the pinned memories and the session, calls the
 * pipeline, and records the audit line and the access. Nothing is written on this path; access
 * statistics travel as events. With the embedder unavailable it answers what it can — BM25 alone,
 * naming the embedder in `degraded` — and only a recall that needs vectors and nothing else
 * (ENGRAM_RECALL_LEGS=knn) fails, with a `DependencyUnavailableError` (503). With the search index
 * unavailable (Elasticsearch) it answers with the pinned memories and the session, naming it in
 * `degraded`, or 503 when there is neither; with the fact store's server unavailable, 503.
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
    private readonly dependencies: DependencyMonitor,
    /** What Chinese words mean in English: searched with and ranked by, as the search projection indexed them. */
    @Optional() @Inject(Lexicon) private readonly lexicon?: Lexicon,
  ) {}

  async recall(tenantId: string, request: RecallDto): Promise<RecallResponse> {
    if (request.from && request.to && Date.parse(request.from) >= Date.parse(request.to)) {
      throw new BadRequestException({ message: ['to must be after from'], fields: ['to'] });
    }
    const consistent = await this.waitForAfter(request);
    const asOf = request.asOf ? new Date(request.asOf) : null;
    const validAt = request.validAt ? new Date(request.validAt) : null;
    const now = request.now ? new Date(request.now) : (validAt ?? asOf ?? this.clock.now());
    const { userId } = request;
    // Entity normalisation: "甲骨文数据库" also searches "Oracle" (configured and learned aliases).
    // Every memory (all statuses, with history) only for a look into the past; today, the user's
    // aliases are learned from the memories of theirs that gloss a name (one read), and the pinned
    // memories, the candidates and the session's summary are read together once the search has named
    // the candidates (`GatheredFactReads`).
    const lookBack = asOf !== null || validAt !== null;
    const known = lookBack ? await this.facts.list({ tenantId, userId }) : null;
    const aliases = known ? this.aliasTables.forMemories(known) : await this.aliasTables.ofUser(this.facts, tenantId, userId);
    const facts = known ? null : new GatheredFactReads(this.facts, tenantId, userId);
    const query: RecallQuery = {
      text: request.query,
      expanded: expandQuery(request.query, aliases),
      k: request.k ?? this.recallOptions.k,
      filter: await this.filterOf(tenantId, userId, request),
      asOf,
      validAt,
      ...(request.budget ? { budget: request.budget } : {}),
    };

    // The two candidate sources: the user's memories as they stood (a look into the past), or today's index.
    const [{ pinned, candidates, degraded, search }, session] = await Promise.all([
      known ? this.fromThePast(known, query, aliases) : this.fromTheIndex(facts!, tenantId, userId, query),
      this.sessionOf(facts ?? this.facts, tenantId, request, lookBack, now),
    ]);
    // "那个方案后来怎么样了": what followed the plan shares its words, not the question's; a second search finds it.
    const followUp = followUpFor(query, candidates, this.recallOptions.ranking, now, this.lexicon);
    const followUps = followUp ? { followUp, candidates: await search(followUp.text, followUp.text) } : null;
    if (degraded.includes('elasticsearch') && pinned.length === 0 && session.recent.length === 0 && !session.summary) {
      // Without the index and with nothing pinned or said in the session there is nothing to answer with: say why.
      throw new DependencyUnavailableError('elasticsearch', 'recall has nothing to answer with while the search index is unavailable');
    }

    const answer = recallPipeline({
      query,
      candidates,
      pinned,
      session,
      options: {
        ranking: this.recallOptions.ranking,
        tokenBudget: this.recallOptions.tokenBudget,
        zones: this.recallOptions.budget,
        cap: this.recallOptions.memoryCap,
        lexicon: this.lexicon,
      },
      now,
      followUps,
    });
    this.audit.record(tenantId, request, answer);
    this.recordAccess(tenantId, userId, answer.used, now);
    return recallResponse(answer, consistent, request.debug === true, degraded);
  }

  /**
   * True when there is no `after`, or the read side caught up with it in time. While a stage is
   * paused on a dependency it cannot catch up: recall looks once and answers without waiting.
   */
  private async waitForAfter(request: RecallDto): Promise<boolean> {
    if (request.after === undefined) return true;
    const position = decodePosition(request.after);
    // A position past the log's end would only wait out the timeout: it was never returned by POST /v1/turns.
    if (!position || !(await this.progress.issued(position))) {
      throw new BadRequestException({ message: ['after must be a position returned by POST /v1/turns'], fields: ['after'] });
    }
    const stalled = this.dependencies.pausedStages().length > 0;
    return this.progress.waitFor(position, stalled ? 0 : this.consistency.afterTimeoutMs);
  }

  /** The request's kinds, sessions (as the turn ids they hold) and time window; null when it narrows nothing. */
  private filterOf(tenantId: string, userId: string, request: RecallDto): Promise<RecallFilter | null> {
    return recallFilterOf(request, { turnIdsOf: (sessions) => this.sessions.turnIds(tenantId, userId, sessions) });
  }

  /**
   * Today: the pinned memories, and the index's BM25 and kNN candidates for this user only
   * (`ENGRAM_RECALL_LEGS` may leave one out), within the filter (`indexScope`), with the records
   * they name and their access statistics.
   */
  private async fromTheIndex(facts: GatheredFactReads, tenantId: string, userId: string, query: RecallQuery): Promise<Sources> {
    const search = async (lexical: string, semantic: string) =>
      (await this.indexCandidates(facts, tenantId, userId, lexical, semantic, query.filter)).candidates;
    const [pinned, { candidates, degraded }] = await Promise.all([
      facts.list({ tenantId, userId, pinned: true, statuses: ['active'] }),
      this.indexCandidates(facts, tenantId, userId, searchedText(query.expanded), query.expanded, query.filter),
    ]);
    return { pinned, candidates, degraded, search };
  }

  /** `lexical`: what BM25 searches for (a question with what its referents are found by, `searchedText`); `semantic`: what is embedded. */
  private async indexCandidates(
    facts: GatheredFactReads,
    tenantId: string,
    userId: string,
    lexical: string,
    semantic: string,
    filter: RecallFilter | null,
  ): Promise<{ candidates: RecallCandidates; degraded: RecallDegradation[] }> {
    try {
      return await this.searchCandidates(facts, tenantId, userId, lexical, semantic, filter);
    } finally {
      facts.release(); // where nothing was found (or the search failed), the pinned memories and the summary alone
    }
  }

  private async searchCandidates(
    facts: GatheredFactReads,
    tenantId: string,
    userId: string,
    lexical: string,
    semantic: string,
    filter: RecallFilter | null,
  ): Promise<{ candidates: RecallCandidates; degraded: RecallDegradation[] }> {
    const limit = this.recallOptions.candidates;
    const legs = this.recallOptions.legs;
    const terms = termsInDictionaryForm(lexical, this.lexicon);
    const active = filter && narrowsBeyondKinds(filter) ? await facts.list({ tenantId, userId, statuses: ['active'] }) : null;
    const within = indexScope(filter, active);
    // Neither leg while the search index is known to be down (asked again once per ENGRAM_DEPENDENCY_RECHECK_MS).
    const indexUp = this.dependencies.worthCalling('elasticsearch');
    const [textHits, knn] = await Promise.all([
      // A Chinese question also searches with its words' English (English memories, and Chinese ones indexed with theirs), an English one in its words' dictionary forms.
      legs === 'knn' || !indexUp
        ? []
        : this.searchOrNone(() =>
            this.search.searchText({
              tenantId,
              userId,
              terms: [...terms, ...lexiconTerms(semantic, this.lexicon, 'question')],
              limit,
              ...within,
            }),
          ),
      legs === 'bm25' || !indexUp
        ? []
        : this.vectorsOrNone(() => this.briefly([semantic], 'query')).then(
            (vectors) =>
              vectors && this.searchOrNone(() => this.search.searchVector({ tenantId, userId, vector: vectors[0], limit, ...within })),
          ),
    ]);
    if (knn === null && legs === 'knn') {
      throw new DependencyUnavailableError('embedder', 'recall needs the embedder (ENGRAM_RECALL_LEGS=knn), and it is unavailable');
    }
    // No vector leg without the embedder: BM25 alone, and the answer says so. No leg without the index: the pinned facts and the session.
    const searchDown = !indexUp || textHits === undefined || knn === undefined;
    const vectorHits = knn ?? [];
    const degraded: RecallDegradation[] = [
      ...(knn === null ? (['embedder'] as const) : []),
      ...(searchDown ? (['elasticsearch'] as const) : []),
    ];
    if (searchDown) return { candidates: NO_CANDIDATES, degraded };
    const ids = hitIds({ textHits, vectorHits });
    if (ids.length === 0) return { candidates: NO_CANDIDATES, degraded };
    // Access stats are a projection of recall's own events: reading them is not a write on this path.
    const reads = Promise.all([facts.get(tenantId, userId, ids), this.access.get(tenantId, userId, ids)]);
    facts.release(); // the candidates, the pinned memories and the session's summary: one read
    const [memories, used] = await reads;
    return { candidates: indexCandidates({ textHits, vectorHits }, memories, used, filter), degraded };
  }

  /**
   * What the embedder answers, or null when it is unavailable (recall then answers without vectors).
   * While it is known to be down it is not called, but once per ENGRAM_DEPENDENCY_RECHECK_MS, to
   * notice that it is back; what recall finds is told to the dependency monitor.
   */
  private async vectorsOrNone<T>(embed: () => Promise<T>): Promise<T | null> {
    if (!this.dependencies.worthCalling('embedder')) return null;
    try {
      const vectors = await embed();
      this.dependencies.answered('embedder');
      return vectors;
    } catch (error) {
      const outage = unavailableDependency(error);
      if (!outage) throw error;
      this.dependencies.failed('embedder', outage);
      return null;
    }
  }

  /**
   * What the search index answers, or undefined when it is unavailable (an Elasticsearch outage:
   * recall then answers with the pinned facts and the session). The index's adapter tells the
   * dependency monitor what it finds.
   */
  private async searchOrNone<T>(search: () => Promise<T>): Promise<T | undefined> {
    try {
      return await search();
    } catch (error) {
      if (unavailableDependency(error)?.dependency !== 'elasticsearch') throw error;
      return undefined;
    }
  }

  /** One attempt, within ENGRAM_RECALL_EMBED_TIMEOUT_MS: a recall does not wait out the embedder's retries. */
  private briefly(texts: readonly string[], inputType: 'query' | 'passage'): Promise<number[][]> {
    return this.embedder.embed(texts, inputType, { timeoutMs: this.recallOptions.embedTimeoutMs, retries: 0 });
  }

  /**
   * The past: the user's memories (all statuses, with history) as they stood at `asOf` / `validAt`
   * (`pastViews`), their pinned ones, and the rest scored in memory: the query and every view
   * embedded (two calls: asymmetric models), then BM25 and cosine (`pastCandidates`); BM25 alone
   * when the embedder is unavailable.
   */
  private async fromThePast(known: readonly MemoryRecord[], query: RecallQuery, aliases: EntityAliasTable): Promise<Sources> {
    const views = pastViews(known, query.asOf, query.validAt, query.filter);
    const pinned = views.filter((memory) => memory.pinned);
    const rankable = rankableViews(views);
    if (rankable.length === 0) return { pinned, candidates: NO_CANDIDATES, degraded: [], search: () => Promise.resolve(NO_CANDIDATES) };
    const limit = this.recallOptions.candidates;
    // The views are embedded once: a follow-up's second search scores the same passages.
    const passages = this.vectorsOrNone(() =>
      this.briefly(
        rankable.map((view) => embeddedText(view, aliases)),
        'passage',
      ),
    );
    const search = async (lexical: string, semantic: string) => {
      const embedded = await passages;
      const vector = embedded && (await this.vectorsOrNone(() => this.briefly([semantic], 'query')));
      const vectors = embedded && vector ? { query: vector[0], passages: embedded } : null;
      return pastCandidates(rankable, lexical, vectors, { limit, aliases, lexicon: this.lexicon });
    };
    const candidates = await search(searchedText(query.expanded), query.expanded);
    return { pinned, candidates, degraded: (await passages) === null ? ['embedder'] : [], search };
  }

  /** The session's summary and recent turns (none without `sessionId`); a look into the past reads the turns only. */
  private async sessionOf(
    facts: UserFactReader,
    tenantId: string,
    request: RecallDto,
    lookBack: boolean,
    now: Date,
  ): Promise<RecallSession<SessionTurn>> {
    const { userId, sessionId } = request;
    if (!sessionId || this.recallOptions.recentTurns <= 0) return { summary: null, recent: [] };
    if (lookBack) return { summary: null, recent: await this.sessions.recent(tenantId, userId, sessionId, this.recallOptions.recentTurns) };
    return this.sessionContext(facts, tenantId, userId, sessionId, now);
  }

  /**
   * What the session said before its recent window: its summary, and the turns it does not cover
   * (the window, plus those that left it since the summary was last re-derived). A session that has
   * no summary yet starts with the previous session's summary and last turns (carried over).
   */
  private async sessionContext(
    facts: UserFactReader,
    tenantId: string,
    userId: string,
    sessionId: string,
    now: Date,
  ): Promise<RecallSession<SessionTurn>> {
    const every = this.recallOptions.summaryEvery;
    const window = this.recallOptions.recentTurns + Math.max(0, every - 1);
    const [turns, own] = await Promise.all([
      this.sessions.recent(tenantId, userId, sessionId, window),
      this.recallOptions.summaryEvery > 0 ? activeSummary(facts, tenantId, userId, sessionId) : undefined,
    ]);
    if (own) return { summary: { memory: own, sessionId, previous: false }, recent: turnsNotSummarised(turns, own) };
    const carry = this.recallOptions.carryOverTurns;
    if (every <= 0 && carry <= 0) return { summary: null, recent: turns };
    const previous = await this.sessions.previousSession(tenantId, userId, sessionId, turns[0]?.occurredAt ?? now.toISOString());
    if (!previous) return { summary: null, recent: turns };
    const [earlier, theirs] = await Promise.all([
      carry > 0 ? this.sessions.recent(tenantId, userId, previous, window) : Promise.resolve([]),
      this.recallOptions.summaryEvery > 0 ? activeSummary(facts, tenantId, userId, previous) : undefined,
    ]);
    const carried = carry > 0 ? await stillCurrent(facts, tenantId, userId, previous, turnsNotSummarised(earlier, theirs), now) : [];
    return {
      summary: theirs ? { memory: theirs, sessionId: previous, previous: true } : null,
      recent: [...carried.slice(-carry), ...turns],
    };
  }

  /** Recall's use of what it returned, as an event for the access projection (none when nothing was used). */
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

/** What recall ranks and what it pins, from either source, the dependencies it had to do without, and how that source is searched again (a follow-up's second search). */
interface Sources {
  readonly pinned: readonly MemoryRecord[];
  readonly candidates: RecallCandidates;
  readonly degraded: readonly RecallDegradation[];
  /** BM25 for `lexical`, the embedding of `semantic`. */
  readonly search: (lexical: string, semantic: string) => Promise<RecallCandidates>;
}

/** Moved to the configuration library, where every option is mapped; re-exported for existing importers. */
export { rankingConfigFrom } from '@engram/config';
