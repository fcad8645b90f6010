import { Inject, Logger } from '@nestjs/common';
import { createSummaryWriter } from '@engram/adapters-llm';
import { EventPattern, Payload } from '@nestjs/microservices';
import { insightRulesSource, ResolverOptions } from '@engram/config';
import { MemoryRecord, STAGES, subscriptionOf } from '@engram/contracts';
import {
  CompiledInsightRules,
  compileInsightRules,
  extractiveSummaryWriter,
  insightRulesWith,
  isResolverCommand,
  parseInsightRules,
  ResolverCommand,
  ResolverDecider,
  ResolverDeciderOptions,
  ResolverEvent,
  ResolverState,
  SummaryMaterial,
  SummaryWriter,
} from '@engram/domain';
import { FactStore } from '@engram/ports';
import { EventPublisher } from './event-publisher';
import { EntityAliases } from './entity-aliases.provider';
import { FactsProjection } from './facts.projection';
import { groupByUser, userKey } from './segments';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';

/**
 * extracted → facts. What is decided, and in what order, is `ResolverDecider`'s
 * (libs/domain/src/resolution/resolver.decider.ts): extractions, the commands (forgetting,
 * imports, per-memory control, profile facts), summaries, insights. This stage only reads each
 * user's memories from the fact store, hands the decider the batch's events in log order, and
 * writes what it returns. The topic is keyed by user, so one resolver instance owns a user at a
 * time and its state (the fact store) is never raced. Decisions are published before they are
 * applied: a crash in between replays the batch, which re-decides the same events (deterministic
 * ids) and the revision-guarded store ignores what it already has.
 *
 * The one wait inside a decision is a session summary worded by a model: the decider pauses
 * there (`begin`), the stage asks the writer, the decider finishes (`resume`).
 */
@StageController()
export class ResolverStage {
  private readonly decider: ResolverDeciderOptions;
  /** Tenants whose health facts are kept otherwise than the deployment's default (ENGRAM_SENSITIVE_FACTS_TENANTS). */
  private readonly sensitiveFactsByTenant: ResolverOptions['sensitiveFactsByTenant'];
  private readonly summaryWriter: SummaryWriter;
  private readonly log = new Logger(ResolverStage.name);

  constructor(
    private readonly publisher: EventPublisher,
    private readonly facts: FactsProjection,
    @Inject(ResolverOptions) options: ResolverOptions,
    @Inject(FactStore) private readonly store: FactStore,
    aliases: EntityAliases,
  ) {
    const insightRules = configuredInsightRules(options.insights);
    this.decider = {
      similarityThreshold: options.similarityThreshold,
      sensitiveFacts: options.sensitiveFacts,
      entityAliases: aliases.configured,
      summary: options.summary,
      insightRules: options.insights.enabled ? insightRules : null,
    };
    this.sensitiveFactsByTenant = options.sensitiveFactsByTenant;
    this.summaryWriter = createSummaryWriter(options.summaryModel);
  }

  private deciderFor(tenantId: string): ResolverDeciderOptions {
    const sensitiveFacts = this.sensitiveFactsByTenant.get(tenantId);
    return sensitiveFacts === undefined ? this.decider : { ...this.decider, sensitiveFacts };
  }

  @EventPattern(subscriptionOf(STAGES.resolver))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    const out: ResolverEvent[] = [];
    const users = groupByUser(batch.events.filter(isResolverCommand));
    const states = await this.loadStates([...users.values()].map((commands) => commands[0]));
    for (const [key, commands] of users) {
      // The stage's own copy of the user's memories: nothing the decider returns holds it, so each
      // event's decisions are applied to it in place rather than to a new copy per event.
      const state = states.get(key) ?? new Map<string, MemoryRecord>();
      for (const command of commands) {
        const events = await this.decide(command, state);
        ResolverDecider.evolveOwned(state, events);
        out.push(...events);
      }
    }
    await this.publisher.publish(STAGES.resolver.output, out);
    await this.facts.apply(out);
  }

  private async decide(command: ResolverCommand, state: ResolverState): Promise<ResolverEvent[]> {
    const options = this.deciderFor(command.tenantId);
    if (this.summaryWriter === extractiveSummaryWriter) return ResolverDecider.decide(command, state, options);
    const step = ResolverDecider.begin(command, state, options);
    return 'done' in step ? step.done : step.resume(await this.write(step.summaryDue));
  }

  /**
   * The summary's lines as the configured model writes them. A model that fails does not hold up the
   * user's memories: the extractive lines stand in, and the next summary is the model's again.
   */
  private async write(material: SummaryMaterial): Promise<string[]> {
    try {
      return await this.summaryWriter.write(material);
    } catch (error) {
      this.log.warn({ error: String(error), sessionId: material.sessionId }, 'the summary model failed: extractive summary instead');
      return extractiveSummaryWriter.write(material);
    }
  }

  /** Every user's memories in one read of the fact store (not one per user), keyed as `groupByUser` keys them. */
  private async loadStates(users: readonly { tenantId: string; userId: string }[]): Promise<Map<string, Map<string, MemoryRecord>>> {
    const states = new Map<string, Map<string, MemoryRecord>>();
    for (const memory of await this.store.listUsers(users)) {
      const key = userKey(memory.tenantId, memory.userId);
      let state = states.get(key);
      if (!state) states.set(key, (state = new Map()));
      state.set(memory.memoryId, memory);
    }
    return states;
  }
}

/** The default insight rules plus ENGRAM_INSIGHT_RULES (validated at start-up by loadConfig). */
export function configuredInsightRules(insights: Pick<ResolverOptions['insights'], 'rules' | 'minSupport'>): CompiledInsightRules {
  const text = insightRulesSource(insights.rules);
  const parsed = text === '' ? { rules: [] } : parseInsightRules(text);
  return compileInsightRules(insightRulesWith('rules' in parsed ? parsed.rules : []), insights.minSupport);
}
