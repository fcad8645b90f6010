import { Logger } from '@nestjs/common';
import type { ExtractionOptions, PipelineOptions, ReplayOptions, ResolverOptions } from '@engram/config';
import { deterministicId, EngramEvent, MemoryAdded, MemoryDecision, newEvent, partitionKey, UserForgotten } from '@engram/contracts';
import { defaultScreeningConfig, ExtractionStrategy, memoriesAsOf } from '@engram/domain';
import { EventLog, FactStore, lag, LogPosition, ReprocessLineage } from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';
import { EventPublisher } from '../pipeline/event-publisher';
import { ExtractorStage } from '../pipeline/extractor.stage';
import { FactsProjection, isDecisionOrForget } from '../pipeline/facts.projection';
import { FilterStage } from '../pipeline/filter.stage';
import { isMemoryCommand, MemoryCommand } from '../pipeline/memory-commands';
import type { Projection } from '../pipeline/projection';
import { ResolverStage } from '../pipeline/resolver.stage';
import { consumeUpTo, consumeUpToOrFail } from '../transport/consume-up-to';
import { parseMessages } from './parse-messages';
import { ReplayProjections } from './replay-projections';
import type { ReprocessProgress } from './reprocess-options';

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
    pipeline: PipelineOptions,
    metrics: EngramMetrics,
    private readonly runTopic: string,
  ) {
    super(log, pipeline, metrics);
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

const NO_CONTEXT = { isRunning: () => true, heartbeat: async () => undefined };

/** What a run needs from the process: the log, the options of the stages and replays, the projections, and the reprocessor's logger. */
export interface ReprocessRunDeps {
  readonly eventLog: EventLog;
  readonly pipeline: PipelineOptions;
  readonly resolver: ResolverOptions;
  readonly extraction: ExtractionOptions;
  readonly replay: ReplayOptions;
  readonly metrics: EngramMetrics;
  readonly projections: ReplayProjections;
  readonly log: Logger;
  /** The turns and extracted topics as this deployment names them. */
  readonly turnsTopic: string;
  readonly extractedTopic: string;
}

/**
 * One reprocess run's pipeline: the live stage classes (FilterStage, ExtractorStage,
 * ResolverStage), fed by hand, writing the run's facts and search versions and its topic.
 */
export class ReprocessRun {
  readonly group: string;
  readonly commandsGroup: string;
  private readonly from: number | null;
  private readonly filter: FilterStage;
  private readonly extractor: ExtractorStage;
  private readonly resolver: ResolverStage;
  private readonly screened: CapturingPublisher;
  private readonly extracted: CapturingPublisher;
  private readonly decided: RunTopicPublisher;
  /** Memory commands (forgetting, imports) read from memory.extracted.v1, not yet handed to the resolver, per user. */
  private readonly commands = new Map<string, MemoryCommand[]>();
  turns = 0;
  decisions = 0;

  private constructor(
    private readonly deps: ReprocessRunDeps,
    readonly lineage: ReprocessLineage,
    strategy: ExtractionStrategy,
    readonly factsStore: FactStore,
    readonly facts: FactsProjection,
    readonly search: Projection,
  ) {
    const { eventLog, pipeline, metrics } = deps;
    this.screened = new CapturingPublisher(eventLog, pipeline, metrics);
    this.extracted = new CapturingPublisher(eventLog, pipeline, metrics);
    this.decided = new RunTopicPublisher(eventLog, pipeline, metrics, lineage.topic);
    this.group = `reprocess-${lineage.runId}`;
    this.commandsGroup = `${this.group}-commands`;
    this.from = lineage.from === 'beginning' ? null : Date.parse(lineage.from);
    this.filter = new FilterStage(this.screened, defaultScreeningConfig);
    this.extractor = new ExtractorStage(this.extracted, strategy, deps.extraction);
    this.resolver = new ResolverStage(this.decided, facts, deps.resolver, factsStore, deps.projections.aliases);
  }

  /** The run over the versions its lineage names (opened, so created when new). */
  static async open(deps: ReprocessRunDeps, lineage: ReprocessLineage, strategy: ExtractionStrategy): Promise<ReprocessRun> {
    const factsStore = await deps.projections.facts.open(lineage.factsVersion);
    const searchIndex = await deps.projections.search.open(lineage.searchVersion);
    const facts = new FactsProjection(factsStore);
    return new ReprocessRun(deps, lineage, strategy, factsStore, facts, deps.projections.over('search', searchIndex));
  }

  /**
   * Memories as they stood at `from` (memoriesAsOf over the active version),
   * recorded as MemoryAdded events on the run's topic: the new version does
   * not depend on the old one's tables to be rebuilt.
   */
  async carryOver(from: number, onProgress?: (p: ReprocessProgress) => void): Promise<number> {
    const versions = this.deps.projections.facts;
    const live = await versions.open(await versions.active());
    const users = await live.users();
    const recordedAt = new Date(from).toISOString();
    let carried = 0;
    onProgress?.({ phase: 'carrying over', done: 0, total: users.length });
    for (const [i, { tenantId, userId }] of users.entries()) {
      const memories = memoriesAsOf(await live.list({ tenantId, userId }), recordedAt);
      const events: MemoryAdded[] = memories.map((memory) =>
        newEvent<MemoryAdded>({
          eventId: deterministicId('carried', this.lineage.runId, tenantId, userId, memory.memoryId),
          type: 'MemoryAdded',
          tenantId,
          userId,
          occurredAt: memory.validFrom,
          recordedAt,
          correlationId: deterministicId('reprocess', this.lineage.runId),
          payload: { memory, itemId: null },
        }),
      );
      await this.emit(events);
      carried += events.length;
      onProgress?.({ phase: 'carrying over', done: i + 1, total: users.length });
    }
    return carried;
  }

  private async emit(events: readonly (MemoryDecision | UserForgotten)[]): Promise<void> {
    if (events.length === 0) return;
    await this.deps.eventLog.append(
      this.lineage.topic,
      events.map((e) => ({ key: partitionKey(e.tenantId, e.userId), value: e })),
    );
    this.decisions += events.length;
    await this.facts.apply(events);
    await this.search.apply(events);
  }

  /** Re-decides the turns (and memory commands) from the run's positions up to the ends read now. */
  async catchUp(phase: ReprocessProgress['phase'], onProgress?: (p: ReprocessProgress) => void): Promise<void> {
    const { eventLog, pipeline, replay, log, turnsTopic, extractedTopic } = this.deps;
    const onInvalid = (message: { topic: string; offset: number }, error: unknown) =>
      log.error({ topic: message.topic, offset: message.offset, reason: String(error) }, 'skipping an invalid event during reprocess');
    // Commands are few: read them all first and hand each to the resolver just before the user's
    // first extraction recorded after it, as the live log ordered them.
    await consumeUpTo(eventLog, extractedTopic, this.commandsGroup, await eventLog.endPosition(extractedTopic), async (messages) => {
      for (const event of parseMessages(messages, onInvalid)) {
        if (!isMemoryCommand(event) || (this.from !== null && Date.parse(event.recordedAt) < this.from)) continue;
        const key = `${event.tenantId}\u0000${event.userId}`;
        this.commands.set(key, [...(this.commands.get(key) ?? []), event]);
      }
    });
    const end = await eventLog.endPosition(turnsTopic);
    const total = lag(end, await eventLog.committedPosition(turnsTopic, this.group));
    let done = 0;
    onProgress?.({ phase, done, total });
    await consumeUpToOrFail(
      eventLog,
      turnsTopic,
      this.group,
      end,
      async (messages) => {
        // A failed batch is delivered again: start it from the same in-memory state.
        const pending = new Map([...this.commands].map(([user, commands]) => [user, [...commands]]));
        for (const publisher of [this.screened, this.extracted, this.decided]) publisher.take();
        try {
          const turns = parseMessages(messages, onInvalid).filter((e) => this.from === null || Date.parse(e.recordedAt) >= this.from);
          await this.filter.handle({ events: turns, context: NO_CONTEXT });
          await this.extractor.handle({ events: this.screened.take(), context: NO_CONTEXT });
          await this.resolve(this.interleave(this.extracted.take()));
        } catch (error) {
          this.commands.clear();
          for (const [user, commands] of pending) this.commands.set(user, commands);
          log.warn({ runId: this.lineage.runId, reason: error instanceof Error ? error.message : String(error) }, 'reprocess batch failed');
          throw error;
        }
        this.turns += messages.length;
        done += messages.length;
        onProgress?.({ phase, done, total });
      },
      { maxBatchSize: replay.batchSize, attempts: pipeline.stageAttempts },
    );
    // Commands recorded after every turn read so far.
    const rest = [...this.commands.values()].flat();
    this.commands.clear();
    if (rest.length > 0) await this.resolve(rest);
  }

  private interleave(extracted: readonly EngramEvent[]): EngramEvent[] {
    const out: EngramEvent[] = [];
    for (const event of extracted) {
      const key = `${event.tenantId}\u0000${event.userId}`;
      const pending = this.commands.get(key);
      if (pending) {
        const due = pending.filter((c) => c.recordedAt <= event.recordedAt);
        if (due.length > 0) {
          out.push(...due);
          const later = pending.filter((c) => c.recordedAt > event.recordedAt);
          if (later.length > 0) this.commands.set(key, later);
          else this.commands.delete(key);
        }
      }
      out.push(event);
    }
    return out;
  }

  private async resolve(events: readonly EngramEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.resolver.handle({ events, context: NO_CONTEXT });
    const decided = this.decided.take();
    this.decisions += decided.length;
    await this.search.apply(decided.filter(isDecisionOrForget));
  }
}
