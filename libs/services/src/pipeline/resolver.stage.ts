import { Inject, Logger } from '@nestjs/common';
import { createSummaryWriter } from '@engram/adapters-llm';
import { EventPattern, Payload } from '@nestjs/microservices';
import { insightRulesSource, ResolverOptions } from '@engram/config';
import { EngramEvent, MemoriesExtracted, MemoryDecision, MemoryRecord, STAGES, subscriptionOf, UserForgotten } from '@engram/contracts';
import {
  CompiledInsightRules,
  compileInsightRules,
  InsightDecider,
  insightRulesWith,
  parseInsightRules,
  ResolutionDecider,
  ResolverState,
  extractiveSummaryWriter,
  SummaryDecider,
  SummaryWriter,
  withoutInsights,
} from '@engram/domain';
import { FactStore } from '@engram/ports';
import { EventPublisher } from './event-publisher';
import { EntityAliases, withCanonicalEntities } from './entity-aliases.provider';
import { FactsProjection } from './facts.projection';
import { decideMemoryCommand, isMemoryCommand, MemoryCommand } from './memory-commands';
import { forward, groupByUser } from './segments';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';

/**
 * extracted → facts: merges, supersedes, reinforces or retracts against what
 * the user already has. The topic is keyed by user, so one resolver instance
 * owns a user at a time and its state (the fact store) is never raced.
 * Decisions are published before they are applied: a crash in between replays
 * the batch, which re-decides the same events (deterministic ids) and the
 * revision-guarded store ignores what it already has.
 *
 * After each event that changed a user's memories, the insight decider looks at the evolved state
 * and derives, updates or retracts insights (docs/memory-model.md §11); its decisions travel with
 * the others, caused by the decision that changed the support. Per event, not per batch, so how a
 * redelivered batch is cut does not change what is decided. Item resolution never sees insights:
 * they are derived, not said, so "that's no longer true" cannot land on one.
 */
@StageController()
export class ResolverStage {
  private readonly insightRules: CompiledInsightRules;
  private readonly summaryWriter: SummaryWriter;
  private readonly log = new Logger(ResolverStage.name);

  constructor(
    private readonly publisher: EventPublisher,
    private readonly facts: FactsProjection,
    @Inject(ResolverOptions) private readonly options: ResolverOptions,
    @Inject(FactStore) private readonly store: FactStore,
    private readonly aliases: EntityAliases,
  ) {
    this.insightRules = configuredInsightRules(options.insights);
    this.summaryWriter = createSummaryWriter(options.summaryModel);
  }

  @EventPattern(subscriptionOf(STAGES.resolver))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    const relevant = (batch.events as EngramEvent[]).filter(
      (e): e is MemoriesExtracted | UserForgotten | MemoryCommand =>
        e.type === 'MemoriesExtracted' || e.type === 'UserForgotten' || isMemoryCommand(e),
    );
    const out: (MemoryDecision | UserForgotten)[] = [];
    for (const events of groupByUser(relevant).values()) {
      let state = await this.loadState(events[0].tenantId, events[0].userId);
      for (const event of events) {
        if (event.type === 'UserForgotten') {
          out.push(forward(event));
          state = ResolutionDecider.initialState();
          continue;
        }
        const resolution = { similarityThreshold: this.options.similarityThreshold, recordedAt: event.recordedAt };
        const decisions = isMemoryCommand(event)
          ? decideMemoryCommand(event, state, resolution) // forgetting, imports, per-memory control, profile: see memory-commands.ts
          : ResolutionDecider.decide(withCanonicalEntities(event, this.aliases.configured), withoutInsights(state), resolution);
        state = decisions.reduce(ResolutionDecider.evolve, state);
        out.push(...decisions);
        if (decisions.length === 0) continue;
        if (event.type === 'MemoriesExtracted') {
          // The turns this extraction brought may push older ones out of the session's recent window.
          const summary = await this.summarise(event, state);
          state = summary.reduce(ResolutionDecider.evolve, state);
          out.push(...summary);
        }
        if (!this.options.insights.enabled) continue;
        const insights = InsightDecider.decide(
          {
            tenantId: event.tenantId,
            userId: event.userId,
            triggerId: event.eventId,
            correlationId: event.correlationId,
            occurredAt: event.occurredAt,
            changes: decisions,
          },
          state,
          { rules: this.insightRules, recordedAt: event.recordedAt },
        );
        state = insights.reduce(ResolutionDecider.evolve, state);
        out.push(...insights);
      }
    }
    await this.publisher.publish(STAGES.resolver.output, out);
    await this.facts.apply(out);
  }

  /**
   * The session's summary when it is due: extractive (pure), or written by the configured LLM from
   * the summary so far and the turns that left the window. A model that fails does not hold up the
   * user's memories: the extractive lines stand in, and the next summary is the model's again.
   */
  private async summarise(event: MemoriesExtracted, state: ResolverState): Promise<MemoryDecision[]> {
    const review = {
      tenantId: event.tenantId,
      userId: event.userId,
      sessionId: event.payload.sessionId,
      triggerId: event.eventId,
      correlationId: event.correlationId,
    };
    const options = { ...this.options.summary, recordedAt: event.recordedAt };
    if (this.summaryWriter === extractiveSummaryWriter) return SummaryDecider.decide(review, state, options);
    const due = SummaryDecider.due(review, state, options);
    if (!due) return [];
    let lines: string[];
    try {
      lines = await this.summaryWriter.write(due.material);
    } catch (error) {
      this.log.warn({ error: String(error), sessionId: review.sessionId }, 'the summary model failed: extractive summary instead');
      lines = await extractiveSummaryWriter.write(due.material);
    }
    return [SummaryDecider.written(due, lines, options)];
  }

  private async loadState(tenantId: string, userId: string): Promise<ResolverState> {
    const memories: MemoryRecord[] = await this.store.list({ tenantId, userId });
    return new Map(memories.map((m) => [m.memoryId, m]));
  }
}

/** The default insight rules plus ENGRAM_INSIGHT_RULES (validated at start-up by loadConfig). */
export function configuredInsightRules(insights: Pick<ResolverOptions['insights'], 'rules' | 'minSupport'>): CompiledInsightRules {
  const text = insightRulesSource(insights.rules);
  const parsed = text === '' ? { rules: [] } : parseInsightRules(text);
  return compileInsightRules(insightRulesWith('rules' in parsed ? parsed.rules : []), insights.minSupport);
}
