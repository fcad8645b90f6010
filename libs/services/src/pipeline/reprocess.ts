import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { createExtractionStrategy } from '@engram/adapters-llm';
import { EngramConfig } from '@engram/config';
import {
  deterministicId,
  EngramEvent,
  MemoryAdded,
  MemoryDecision,
  newEvent,
  parseEvent,
  partitionKey,
  Topics,
  UserForgotten,
} from '@engram/contracts';
import { defaultScreeningConfig, ExtractionStrategy, memoriesAsOf, RuleExtractor } from '@engram/domain';
import {
  ConsumedMessage,
  Embedder,
  EventLog,
  FactStore,
  FactStoreVersions,
  lag,
  LogPosition,
  ProjectionVersions,
  RebuildLedger,
  RebuildRecord,
  ReprocessLineage,
  SearchIndex,
  SearchIndexVersions,
  VersionedProjection,
} from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';
import { consumeUpTo, consumeUpToOrFail } from './consume-up-to';
import { EventPublisher } from './event-publisher';
import { ExtractorStage } from './extractor.stage';
import { FactsProjection, isDecision } from './facts.projection';
import { FilterStage } from './filter.stage';
import { isMemoryCommand, MemoryCommand } from './memory-commands';
import { PipelineProgress } from './pipeline-progress';
import { ResolverStage } from './resolver.stage';
import { SearchProjection } from './search.projection';

export interface ReprocessOptions {
  /** 'beginning', or an ISO instant: memories as they stood then are carried over, later turns re-decided. */
  readonly from: string;
  /** The extraction strategy to re-run: `rules-7`, or the configured LLM's `llm-<prompt>:<model>`. */
  readonly extractorVersion: string;
  readonly onProgress?: (progress: ReprocessProgress) => void;
}

export interface ReprocessProgress {
  readonly phase: 'carrying over' | 'reprocessing' | 'catching up' | 'overlap';
  /** Input messages handled in this phase (users when carrying over, turns otherwise). */
  readonly done: number;
  readonly total: number;
}

/** The run's lineage (not activated yet, so no switch position) and what it read and wrote. */
export interface ReprocessResult extends Omit<ReprocessLineage, 'switchPosition'> {
  /** Turns-topic messages read (turns and forget requests). */
  readonly turns: number;
  /** Memories carried over as they stood at `from`. */
  readonly carried: number;
  /** Events appended to the run's topic (carried memories, decisions, forgets). */
  readonly decisions: number;
}

export interface ActivationResult {
  readonly factsVersion: number;
  readonly searchVersion: number;
  readonly previousFactsVersion: number;
  readonly previousSearchVersion: number;
  /** Turns re-decided during the catch-up before the switch. */
  readonly caughtUp: number;
  readonly switchPosition: LogPosition;
}

/** Refused: the brief's `--extractor-version` names no strategy this build can run. */
export class UnknownExtractorVersion extends Error {
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(
      `unknown extractor version "${requested}": this build knows ${known.join(', ')}${known.some((k) => k.startsWith('llm-')) ? '' : ' (the LLM one needs ENGRAM_LLM_URL, and ENGRAM_LLM_MODEL names it)'}`,
    );
  }
}

/** Refused: another reprocess or rebuild of facts/search is in the way. */
export class ReprocessConflict extends Error {}

/** The extraction strategies this build can run: the rules, and the LLM one when an endpoint is configured. */
export function knownExtractionStrategies(config: EngramConfig): ExtractionStrategy[] {
  const strategies: ExtractionStrategy[] = [new RuleExtractor()];
  if (config.ENGRAM_LLM_URL) strategies.push(createExtractionStrategy({ ...config, ENGRAM_EXTRACTOR: 'llm' }));
  return strategies;
}

export function extractionStrategyFor(config: EngramConfig, version: string): ExtractionStrategy {
  const known = knownExtractionStrategies(config);
  const strategy = known.find((s) => s.version === version);
  if (!strategy)
    throw new UnknownExtractorVersion(
      version,
      known.map((s) => s.version),
    );
  return strategy;
}

/**
 * The lineage of a projection version, when a reprocess built it or an online
 * rebuild replayed one that a reprocess built (its record carries the same
 * lineage: the run's topic and switch position are what the version holds,
 * whichever version number it has). A version still in its rebuild's grace
 * period (`swapped`) already serves and has its lineage too.
 */
export async function reprocessLineageOf(
  ledger: RebuildLedger,
  projection: VersionedProjection,
  version: number,
): Promise<ReprocessLineage | undefined> {
  const record = (await ledger.list()).find((r) => r.projection === projection && r.version === version);
  return record?.phase === 'done' || record?.phase === 'swapped' ? record.reprocess : undefined;
}

/**
 * True for the records a reprocess run writes for the versions it builds; false
 * for an online rebuild of a reprocessed version, which carries the run's lineage
 * (whose `factsVersion`/`searchVersion` keep naming the run's versions) under a
 * later version number.
 */
export function isReprocessRun(record: RebuildRecord): record is RebuildRecord & { readonly reprocess: ReprocessLineage } {
  const lineage = record.reprocess;
  return lineage !== undefined && record.version === (record.projection === 'facts' ? lineage.factsVersion : lineage.searchVersion);
}

/**
 * Where a reprocessed version's decisions are, in replay order: the run's topic
 * in full (fixed once the run finished), then memory.facts.v1 from the switch
 * position on (earlier messages of each partition are skipped: see `fromPosition`).
 */
/** A topic a replay reads, and from where on each partition its messages count. */
export interface ReplaySource {
  readonly topic: string;
  readonly skipBelow: LogPosition;
}

export function reprocessedSources(lineage: ReprocessLineage, factsTopic: string, options: { liveOnly?: boolean } = {}): ReplaySource[] {
  const sources: ReplaySource[] = options.liveOnly ? [] : [{ topic: lineage.topic, skipBelow: {} }];
  // Not activated yet: nothing live belongs to it.
  if (lineage.switchPosition) sources.push({ topic: factsTopic, skipBelow: lineage.switchPosition });
  return sources;
}

/** The messages at or after `position` on their partition. */
export function fromPosition(messages: readonly ConsumedMessage[], position: LogPosition): ConsumedMessage[] {
  return messages.filter((m) => m.offset >= (position[m.partition] ?? 0));
}

/**
 * Replays a reprocessed version: the run's topic in full, then memory.facts.v1
 * from the switch position on (the live decisions made against the new version).
 * `group` is reset to the beginning of both topics.
 */
export async function replayReprocessed(
  eventLog: EventLog,
  lineage: ReprocessLineage,
  factsTopic: string,
  group: string,
  apply: (events: readonly EngramEvent[]) => Promise<void>,
  options: { onBatch?: (messages: number) => void; liveOnly?: boolean } = {},
): Promise<number> {
  let total = 0;
  for (const { topic, skipBelow } of reprocessedSources(lineage, factsTopic, options)) {
    await eventLog.ensureTopics([topic]);
    await eventLog.resetGroup(topic, group, { to: 'beginning' });
    const end = await eventLog.endPosition(topic);
    await consumeUpTo(
      eventLog,
      topic,
      group,
      end,
      async (messages) => {
        const wanted = fromPosition(messages, skipBelow);
        await apply(parseAll(wanted));
        total += wanted.length;
        options.onBatch?.(messages.length);
      },
      { maxBatchSize: 2000 },
    );
  }
  return total;
}

/**
 * Leaves out decisions a live resolver made against the old version around the
 * switch (a batch in flight, a cached pointer) that contradict the new one: a
 * memory the new version does not hold under a merge key it holds under
 * another id. The new version's own memory wins; applying the old one would
 * break the one-memory-per-merge-key rule. Deterministic in log order, so a
 * replay leaves out the same decisions.
 */
export async function withoutStaleDecisions(store: FactStore, events: readonly EngramEvent[]): Promise<(MemoryDecision | UserForgotten)[]> {
  const kept: (MemoryDecision | UserForgotten)[] = [];
  let run: MemoryDecision[] = [];
  const flush = async () => {
    const byUser = new Map<string, MemoryDecision[]>();
    for (const d of run) byUser.set(`${d.tenantId}\u0000${d.userId}`, [...(byUser.get(`${d.tenantId}\u0000${d.userId}`) ?? []), d]);
    const stale = new Set<MemoryDecision>();
    for (const decisions of byUser.values()) {
      const { tenantId, userId } = decisions[0];
      const held = new Map(
        (
          await store.findByMergeKeys(
            tenantId,
            userId,
            decisions.map((d) => d.payload.memory.mergeKey),
          )
        ).map((m) => [m.mergeKey, m.memoryId]),
      );
      for (const d of decisions) {
        const { mergeKey, memoryId } = d.payload.memory;
        const holder = held.get(mergeKey);
        if (holder !== undefined && holder !== memoryId) stale.add(d);
        else held.set(mergeKey, memoryId); // in log order: the first holder within the batch wins too
      }
    }
    kept.push(...run.filter((d) => !stale.has(d)));
    run = [];
  };
  for (const event of events) {
    if (event.type === 'UserForgotten') {
      await flush();
      kept.push(event);
    } else if (isDecision(event.type)) {
      run.push(event as MemoryDecision);
    }
  }
  await flush();
  return kept;
}

function parseAll(messages: readonly ConsumedMessage[], log?: Logger): EngramEvent[] {
  const events: EngramEvent[] = [];
  for (const message of messages) {
    if (message.shredded) continue;
    try {
      events.push(parseEvent(message.value));
    } catch (error) {
      log?.error({ topic: message.topic, offset: message.offset, reason: String(error) }, 'skipping an invalid event during reprocess');
    }
  }
  return events;
}

/** A publisher that keeps what a stage publishes instead of appending it (screened and extracted events of a reprocess are not stored). */
class CapturingPublisher extends EventPublisher {
  captured: EngramEvent[] = [];

  override async publish(_topic: string, events: readonly EngramEvent[]): Promise<LogPosition> {
    this.captured.push(...events);
    return {};
  }

  take(): EngramEvent[] {
    const events = this.captured;
    this.captured = [];
    return events;
  }
}

/** The resolver's decisions go to the run's topic instead of memory.facts.v1, and are kept for the search projection. */
class RunTopicPublisher extends CapturingPublisher {
  constructor(
    private readonly log: EventLog,
    config: EngramConfig,
    metrics: EngramMetrics,
    private readonly runTopic: string,
  ) {
    super(log, config, metrics);
  }

  override async publish(_topic: string, events: readonly EngramEvent[]): Promise<LogPosition> {
    await super.publish(_topic, events);
    if (events.length === 0) return {};
    return this.log.append(
      this.runTopic,
      events.map((e) => ({ key: partitionKey(e.tenantId, e.userId), value: e })),
    );
  }
}

/** One run's pipeline: the live stage classes, fed by hand, writing the new versions. */
interface Run {
  readonly lineage: ReprocessLineage;
  readonly group: string;
  readonly commandsGroup: string;
  readonly from: number | null;
  readonly filter: FilterStage;
  readonly extractor: ExtractorStage;
  readonly resolver: ResolverStage;
  readonly screened: CapturingPublisher;
  readonly extracted: CapturingPublisher;
  readonly decided: RunTopicPublisher;
  readonly search: SearchProjection;
  readonly facts: FactsProjection;
  readonly factsStore: FactStore;
  /** Memory commands (forgetting, imports) read from memory.extracted.v1, not yet handed to the resolver, per user. */
  readonly commands: Map<string, MemoryCommand[]>;
  turns: number;
  decisions: number;
}

const NO_CONTEXT = { isRunning: () => true, heartbeat: async () => undefined };

/**
 * `engram reprocess`: re-runs screening → extraction → resolution (+ insights)
 * over memory.turns.v1 with a chosen extractor version into new facts and
 * search versions, while the live versions keep serving. The new decisions
 * go to a topic of the run's own (`memory.reprocess.<runId>`), never to
 * memory.facts.v1: the new version is reproducible from that topic, and the
 * live log keeps one set of decisions. `activate` re-decides the turns that
 * arrived meanwhile, records where memory.facts.v1 stood (from then on the
 * live resolver decides against the new version) and moves both pointers.
 *
 * The stages are the live classes (FilterStage, ExtractorStage,
 * ResolverStage), fed by hand: a reprocess decides exactly as the pipeline would.
 */
@Injectable()
export class Reprocessor {
  private readonly log = new Logger(Reprocessor.name);

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
    @Inject(FactStoreVersions) private readonly facts: ProjectionVersions<FactStore>,
    @Inject(SearchIndexVersions) private readonly search: ProjectionVersions<SearchIndex>,
    @Inject(Embedder) private readonly embedder: Embedder,
    private readonly metrics: EngramMetrics,
    private readonly progress: PipelineProgress,
    @Optional() private readonly config: EngramConfig = new EngramConfig(),
  ) {}

  private topic(name: string): string {
    return `${this.config.ENGRAM_TOPIC_PREFIX}${name}`;
  }

  /** Builds the new facts and search versions; they stay inactive until `activate`. */
  async run(options: ReprocessOptions): Promise<ReprocessResult> {
    const strategy = extractionStrategyFor(this.config, options.extractorVersion);
    const from = parseFrom(options.from);
    await this.refuseIfBusy();
    const factsVersion = Math.max(await this.facts.active(), ...(await this.facts.list())) + 1;
    const searchVersion = Math.max(await this.search.active(), ...(await this.search.list())) + 1;
    const runId = `v${factsVersion}-${new Date().toISOString().replace(/[-:.]/g, '').toLowerCase()}`;
    const lineage: ReprocessLineage = {
      runId,
      topic: this.topic(`memory.reprocess.${runId}`),
      extractorVersion: strategy.version,
      from: from === null ? 'beginning' : new Date(from).toISOString(),
      factsVersion,
      searchVersion,
    };
    const run = await this.prepare(lineage, strategy);
    await this.eventLog.ensureTopics([lineage.topic, this.topic(Topics.turns), this.topic(Topics.extracted)]);
    await this.eventLog.resetGroup(this.topic(Topics.turns), run.group, { to: 'beginning' });
    await this.eventLog.resetGroup(this.topic(Topics.extracted), run.commandsGroup, { to: 'beginning' });
    const startedAt = new Date().toISOString();
    const record = (projection: VersionedProjection, version: number, previousVersion: number): RebuildRecord => ({
      projection,
      version,
      previousVersion,
      group: run.group,
      phase: 'replaying',
      startedAt,
      done: 0,
      reprocess: lineage,
    });
    const records = [record('facts', factsVersion, await this.facts.active()), record('search', searchVersion, await this.search.active())];
    for (const r of records) await this.ledger.save(r);
    this.log.log({ runId, extractorVersion: strategy.version, from: lineage.from, factsVersion, searchVersion }, 'reprocess started');
    try {
      const carried = from === null ? 0 : await this.carryOver(run, from, options.onProgress);
      await this.catchUp(run, 'reprocessing', options.onProgress);
      for (const r of records) await this.ledger.save({ ...r, phase: 'done', done: run.turns, finishedAt: new Date().toISOString() });
      this.log.log({ runId, turns: run.turns, decisions: run.decisions, carried }, 'reprocess built; activate it to serve');
      return {
        runId,
        topic: lineage.topic,
        extractorVersion: strategy.version,
        from: lineage.from,
        factsVersion,
        searchVersion,
        turns: run.turns,
        carried,
        decisions: run.decisions,
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.facts.drop(factsVersion).catch(() => undefined);
      await this.search.drop(searchVersion).catch(() => undefined);
      for (const r of records)
        await this.ledger.save({ ...r, phase: 'failed', done: run.turns, error: reason, finishedAt: new Date().toISOString() });
      throw error;
    }
  }

  /**
   * Serves a reprocessed facts version (and the search version of the same
   * run). The live pipeline must be drained (a running server drains it; with
   * none running nothing may be pending): the turns that arrived since the run
   * are re-decided into the new version, memory.facts.v1's end is recorded as
   * the switch, both pointers move, and live decisions made around the switch
   * are applied to the new versions (idempotent by revision).
   */
  async activate(
    factsVersion: number,
    options: { drainTimeoutMs?: number; overlapMs?: number; onProgress?: (p: ReprocessProgress) => void } = {},
  ): Promise<ActivationResult> {
    const records = await this.ledger.list();
    const factsRecord = records.find((r) => r.projection === 'facts' && r.version === factsVersion && r.reprocess);
    if (!factsRecord?.reprocess) throw new ReprocessConflict(`facts@${factsVersion} was not built by a reprocess`);
    if (factsRecord.phase !== 'done') throw new ReprocessConflict(`facts@${factsVersion} is ${factsRecord.phase}, not built`);
    if (factsRecord.reprocess.switchPosition)
      throw new ReprocessConflict(`facts@${factsVersion} was already activated (${factsRecord.swappedAt})`);
    const searchRecord = records.find(
      (r) =>
        r.projection === 'search' &&
        r.version === factsRecord.reprocess!.searchVersion &&
        r.reprocess?.runId === factsRecord.reprocess!.runId,
    );
    if (!searchRecord || searchRecord.phase !== 'done')
      throw new ReprocessConflict(`search@${factsRecord.reprocess.searchVersion} of run ${factsRecord.reprocess.runId} is missing`);
    const lineage = factsRecord.reprocess;
    const run = await this.prepare(lineage, extractionStrategyFor(this.config, lineage.extractorVersion));
    const turnsTopic = this.topic(Topics.turns);
    const extractedTopic = this.topic(Topics.extracted);
    const factsTopic = this.topic(Topics.facts);
    const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;

    // Re-decide what arrived since the run, until the live pipeline and the log stand still.
    let switchPosition: LogPosition;
    for (let round = 0; ; round++) {
      const turnsEnd = await this.eventLog.endPosition(turnsTopic);
      const extractedEnd = await this.eventLog.endPosition(extractedTopic);
      await this.catchUp(run, 'catching up', options.onProgress);
      await this.waitDrained(drainTimeoutMs);
      switchPosition = await this.eventLog.endPosition(factsTopic);
      const still =
        lag(await this.eventLog.endPosition(turnsTopic), turnsEnd) === 0 &&
        lag(await this.eventLog.endPosition(extractedTopic), extractedEnd) === 0;
      if (still) break;
      if (round >= 20) throw new ReprocessConflict('turns keep arriving: activate in a quieter moment');
    }
    const previousFactsVersion = await this.facts.active();
    const previousSearchVersion = await this.search.active();
    await this.search.activate(lineage.searchVersion);
    await this.facts.activate(lineage.factsVersion);
    const swappedAt = new Date().toISOString();
    const switched: ReprocessLineage = { ...lineage, switchPosition };
    await this.ledger.save({ ...factsRecord, swappedAt, previousVersion: previousFactsVersion, reprocess: switched });
    await this.ledger.save({ ...searchRecord, swappedAt, previousVersion: previousSearchVersion, reprocess: switched });
    this.log.log(
      { runId: lineage.runId, factsVersion, searchVersion: lineage.searchVersion, switchPosition },
      'reprocessed versions activated',
    );

    // Decisions a live resolver made against the old version around the switch (a batch in flight,
    // a cached pointer) are at or after the switch position: bring them to the new versions.
    const overlap = () =>
      replayReprocessed(
        this.eventLog,
        switched,
        factsTopic,
        `${run.group}-overlap`,
        async (events) => {
          const decisions = await withoutStaleDecisions(run.factsStore, events);
          await run.facts.apply(decisions);
          await run.search.apply(decisions);
        },
        { liveOnly: true },
      );
    await overlap();
    await new Promise((resolve) => setTimeout(resolve, options.overlapMs ?? 2 * this.config.ENGRAM_PROJECTION_POINTER_TTL_MS));
    await overlap();
    return {
      factsVersion,
      searchVersion: lineage.searchVersion,
      previousFactsVersion,
      previousSearchVersion,
      caughtUp: run.turns,
      switchPosition,
    };
  }

  /**
   * Drops a version that is not active (a reprocess not wanted, an interrupted one, or an old
   * version after a switch); its records are marked dropped. A reprocess run's facts and search
   * versions go together.
   */
  async drop(projection: 'facts' | 'search', version: number): Promise<void> {
    const records = await this.ledger.list();
    const run = records.find((r) => r.projection === projection && r.version === version && r.reprocess)?.reprocess;
    const targets: ['facts' | 'search', number][] =
      run && !run.switchPosition
        ? [
            ['facts', run.factsVersion],
            ['search', run.searchVersion],
          ]
        : [[projection, version]];
    for (const [name, v] of targets) {
      const versions = name === 'facts' ? this.facts : this.search;
      if ((await versions.active()) === v) throw new ReprocessConflict(`${name}@${v} is active: activate another version first`);
    }
    for (const [name, v] of targets) {
      await (name === 'facts' ? this.facts : this.search).drop(v);
      for (const r of records) {
        if (r.projection === name && r.version === v && r.phase !== 'failed') {
          await this.ledger.save({ ...r, phase: 'failed', error: 'dropped', finishedAt: new Date().toISOString() });
        }
      }
    }
  }

  private async refuseIfBusy(): Promise<void> {
    for (const r of await this.ledger.list()) {
      if ((r.projection === 'facts' || r.projection === 'search') && (r.phase === 'replaying' || r.phase === 'swapped')) {
        throw new ReprocessConflict(
          isReprocessRun(r)
            ? `reprocess run ${r.reprocess.runId} into ${r.projection}@${r.version} is running or was interrupted: drop it first (engram projections drop ${r.projection}@${r.version})`
            : `an online rebuild of ${r.projection} (v${r.version}) is running`,
        );
      }
    }
  }

  private async prepare(lineage: ReprocessLineage, strategy: ExtractionStrategy): Promise<Run> {
    const factsStore = await this.facts.open(lineage.factsVersion);
    const searchIndex = await this.search.open(lineage.searchVersion);
    const screened = new CapturingPublisher(this.eventLog, this.config, this.metrics);
    const extracted = new CapturingPublisher(this.eventLog, this.config, this.metrics);
    const decided = new RunTopicPublisher(this.eventLog, this.config, this.metrics, lineage.topic);
    const facts = new FactsProjection(factsStore);
    const group = `reprocess-${lineage.runId}`;
    return {
      lineage,
      group,
      commandsGroup: `${group}-commands`,
      from: lineage.from === 'beginning' ? null : Date.parse(lineage.from),
      filter: new FilterStage(screened, defaultScreeningConfig),
      extractor: new ExtractorStage(extracted, strategy),
      resolver: new ResolverStage(decided, facts, this.config, factsStore),
      screened,
      extracted,
      decided,
      search: new SearchProjection(searchIndex, this.embedder, this.config),
      facts,
      factsStore,
      commands: new Map(),
      turns: 0,
      decisions: 0,
    };
  }

  /**
   * Memories as they stood at `from` (memoriesAsOf over the active version),
   * recorded as MemoryAdded events on the run's topic: the new version does
   * not depend on the old one's tables to be rebuilt.
   */
  private async carryOver(run: Run, from: number, onProgress?: (p: ReprocessProgress) => void): Promise<number> {
    const live = await this.facts.open(await this.facts.active());
    const users = await live.users();
    const recordedAt = new Date(from).toISOString();
    let carried = 0;
    onProgress?.({ phase: 'carrying over', done: 0, total: users.length });
    for (const [i, { tenantId, userId }] of users.entries()) {
      const memories = memoriesAsOf(await live.list({ tenantId, userId }), recordedAt);
      const events: MemoryAdded[] = memories.map((memory) =>
        newEvent<MemoryAdded>({
          eventId: deterministicId('carried', run.lineage.runId, tenantId, userId, memory.memoryId),
          type: 'MemoryAdded',
          tenantId,
          userId,
          occurredAt: memory.validFrom,
          recordedAt,
          correlationId: deterministicId('reprocess', run.lineage.runId),
          payload: { memory, itemId: null },
        }),
      );
      await this.emit(run, events);
      carried += events.length;
      onProgress?.({ phase: 'carrying over', done: i + 1, total: users.length });
    }
    return carried;
  }

  private async emit(run: Run, events: readonly (MemoryDecision | UserForgotten)[]): Promise<void> {
    if (events.length === 0) return;
    await this.eventLog.append(
      run.lineage.topic,
      events.map((e) => ({ key: partitionKey(e.tenantId, e.userId), value: e })),
    );
    run.decisions += events.length;
    await run.facts.apply(events);
    await run.search.apply(events);
  }

  /** Re-decides the turns (and memory commands) from the run's positions up to the ends read now. */
  private async catchUp(run: Run, phase: ReprocessProgress['phase'], onProgress?: (p: ReprocessProgress) => void): Promise<void> {
    const turnsTopic = this.topic(Topics.turns);
    const extractedTopic = this.topic(Topics.extracted);
    // Commands are few: read them all first and hand each to the resolver just before the user's
    // first extraction recorded after it, as the live log ordered them.
    await consumeUpTo(
      this.eventLog,
      extractedTopic,
      run.commandsGroup,
      await this.eventLog.endPosition(extractedTopic),
      async (messages) => {
        for (const event of parseAll(messages, this.log)) {
          if (!isMemoryCommand(event) || (run.from !== null && Date.parse(event.recordedAt) < run.from)) continue;
          const key = `${event.tenantId}\u0000${event.userId}`;
          run.commands.set(key, [...(run.commands.get(key) ?? []), event]);
        }
      },
    );
    const end = await this.eventLog.endPosition(turnsTopic);
    const total = lag(end, await this.eventLog.committedPosition(turnsTopic, run.group));
    let done = 0;
    onProgress?.({ phase, done, total });
    await consumeUpToOrFail(
      this.eventLog,
      turnsTopic,
      run.group,
      end,
      async (messages) => {
        // A failed batch is delivered again: start it from the same in-memory state.
        const pending = new Map([...run.commands].map(([user, commands]) => [user, [...commands]]));
        for (const publisher of [run.screened, run.extracted, run.decided]) publisher.take();
        try {
          const turns = parseAll(messages, this.log).filter((e) => run.from === null || Date.parse(e.recordedAt) >= run.from);
          await run.filter.handle({ events: turns, context: NO_CONTEXT });
          await run.extractor.handle({ events: run.screened.take(), context: NO_CONTEXT });
          await this.resolve(run, this.interleave(run, run.extracted.take()));
        } catch (error) {
          run.commands.clear();
          for (const [user, commands] of pending) run.commands.set(user, commands);
          this.log.warn(
            { runId: run.lineage.runId, reason: error instanceof Error ? error.message : String(error) },
            'reprocess batch failed',
          );
          throw error;
        }
        run.turns += messages.length;
        done += messages.length;
        onProgress?.({ phase, done, total });
      },
      { maxBatchSize: this.config.ENGRAM_REBUILD_BATCH_SIZE, attempts: this.config.ENGRAM_STAGE_ATTEMPTS },
    );
    // Commands recorded after every turn read so far.
    const rest = [...run.commands.values()].flat();
    run.commands.clear();
    if (rest.length > 0) await this.resolve(run, rest);
  }

  private interleave(run: Run, extracted: readonly EngramEvent[]): EngramEvent[] {
    const out: EngramEvent[] = [];
    for (const event of extracted) {
      const key = `${event.tenantId}\u0000${event.userId}`;
      const pending = run.commands.get(key);
      if (pending) {
        const due = pending.filter((c) => c.recordedAt <= event.recordedAt);
        if (due.length > 0) {
          out.push(...due);
          const later = pending.filter((c) => c.recordedAt > event.recordedAt);
          if (later.length > 0) run.commands.set(key, later);
          else run.commands.delete(key);
        }
      }
      out.push(event);
    }
    return out;
  }

  private async resolve(run: Run, events: readonly EngramEvent[]): Promise<void> {
    if (events.length === 0) return;
    await run.resolver.handle({ events, context: NO_CONTEXT });
    const decided = run.decided.take();
    run.decisions += decided.length;
    await run.search.apply(decided.filter(isDecisionOrForget));
  }

  private async waitDrained(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pending = await this.progress.pending();
      if (pending === 0) return;
      if (Date.now() >= deadline) {
        throw new ReprocessConflict(
          `the live pipeline has ${pending} pending events: activate while the server runs (it drains them) or once they are processed`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function isDecisionOrForget(event: EngramEvent): event is MemoryDecision | UserForgotten {
  return event.type === 'UserForgotten' || isDecision(event.type);
}

function parseFrom(from: string): number | null {
  if (from === 'beginning') return null;
  const t = Date.parse(from);
  if (!/^\d{4}-\d{2}-\d{2}/.test(from) || !Number.isFinite(t)) {
    throw new Error(`--from must be "beginning" or an ISO instant such as 2026-11-30T09:00:00Z, not "${from}"`);
  }
  return t;
}
