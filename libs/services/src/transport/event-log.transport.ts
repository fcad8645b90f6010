import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { deployedTopic, EngramEvent, InvalidEventError, parseEvent, STAGES } from '@engram/contracts';
import {
  type BatchContext,
  type ConsumedMessage,
  type DependencyName,
  type EventLog,
  type Subscription,
  unavailableDependency,
} from '@engram/ports';
import type { DependencyMonitor } from '../observability/dependency-monitor';
import type { EngramMetrics } from '../observability/metrics';
import { deadLetterTopic, DeadLetter } from './dead-letter';
import { redriveDeadLetters } from './dead-letters';

/**
 * The pattern every stage handler subscribes with, read from the topology:
 * `@EventPattern(subscriptionOf(STAGES.filter))` is `{ topic: 'memory.turns.v1', group: 'filter' }`.
 */
export interface StagePattern {
  readonly topic: string;
  readonly group: string;
}

/** What a stage handler receives: a validated batch, in log order. */
export interface StageBatch {
  readonly events: readonly EngramEvent[];
  readonly context: BatchContext;
}

export interface EventLogTransportOptions {
  readonly topicPrefix?: string;
  readonly maxBatchSize?: number;
  /** Attempts per batch (and then per event) before an event is dead-lettered. */
  readonly attempts?: number;
  /** First retry delay; doubles on each attempt. */
  readonly retryDelayMs?: number;
  readonly metrics?: EngramMetrics;
  /** Told when a stage pauses for an unavailable dependency and when it resumes. */
  readonly monitor?: DependencyMonitor;
  /**
   * How often the dead letters of the topics this process owns are re-driven by themselves
   * (`redriveDeadLetters`), when nothing is down and no stage is paused. 0 or unset: never.
   */
  readonly deadLetterRedriveMs?: number;
}

interface Delivery {
  readonly message: ConsumedMessage;
  readonly event: EngramEvent;
}

/**
 * A NestJS microservice transport over the EventLog port, so the same
 * `@EventPattern` handlers run on Kafka and on the embedded SQLite log.
 * Nest's own Kafka transport hands over one message per call; engram's
 * projections want batches, so this strategy delivers a whole validated batch
 * and lets the event log commit only after the handler resolved.
 *
 * A poison message never blocks a partition and never disappears: an event
 * that fails validation, or keeps throwing after bounded retries (first as
 * part of its batch, then on its own), goes to `<topic>.dlq` with the error,
 * the stage and the original bytes, and the stage moves on.
 *
 * An unavailable dependency is not a poison message: a handler failing with a
 * `DependencyUnavailableError` (an embedder that cannot be reached, …) pauses
 * the stage. The error goes back to the event log, which commits nothing and
 * delivers the same batch again after its backoff (ENGRAM_STAGE_PAUSE_MS,
 * doubling to ENGRAM_STAGE_PAUSE_MAX_MS), until the dependency is back; the
 * batch is counted in `pending` meanwhile and nothing is dead-lettered.
 */
export class EventLogTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];
  private readonly log = new Logger(EventLogTransport.name);
  /** The stages waiting for a dependency, and which. */
  private readonly paused = new Map<string, DependencyName>();
  /** Deployed topics whose dead letters this process re-drives (`ownsDeadLetters`). */
  private readonly redriven = new Set<string>();
  private redriveTimer: ReturnType<typeof setInterval> | undefined;
  private redriving: Promise<void> = Promise.resolve();

  constructor(
    private readonly eventLog: EventLog,
    private readonly options: EventLogTransportOptions = {},
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [key, handler] of this.messageHandlers) {
        const pattern = JSON.parse(key) as StagePattern;
        const topic = deployedTopic(this.options.topicPrefix, pattern.topic);
        await this.eventLog.ensureTopics([topic, deadLetterTopic(topic)]);
        const run = async (events: readonly EngramEvent[], context: BatchContext) => {
          const batch: StageBatch = { events, context };
          await lastValueFrom(this.transformToObservable(await handler(batch)), { defaultValue: undefined });
        };
        const subscription = await this.eventLog.subscribe(
          { topic, group: pattern.group, maxBatchSize: this.options.maxBatchSize },
          (messages, context) => this.deliver(topic, pattern.group, messages, context, run),
        );
        this.subscriptions.push(subscription);
        if (this.ownsDeadLetters(pattern)) this.redriven.add(topic);
      }
      this.scheduleRedrive();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.redriveTimer);
    await this.redriving;
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  /**
   * One process re-drives a topic's letters, so that two do not re-drive the same ones: the one
   * running the first stage that reads it in the topology (the extractor for memory.screened.v1,
   * not the sessions projection), or for a topic no stage of the topology reads, its first handler here.
   */
  private ownsDeadLetters(pattern: StagePattern): boolean {
    const first =
      Object.values(STAGES).find((stage) => stage.input === pattern.topic) ??
      [...this.messageHandlers.keys()].map((key) => JSON.parse(key) as StagePattern).find((other) => other.topic === pattern.topic);
    return first?.group === pattern.group;
  }

  private scheduleRedrive(): void {
    const every = this.options.deadLetterRedriveMs ?? 0;
    if (every <= 0 || this.redriven.size === 0) return;
    this.redriveTimer = setInterval(() => {
      this.redriving = this.redriving.then(() => this.redriveRound());
    }, every);
    this.redriveTimer.unref();
  }

  /** Re-drives the letters of the topics this process owns, unless a dependency is down or a stage waits for one. */
  private async redriveRound(): Promise<void> {
    if (this.paused.size > 0 || (this.options.monitor?.down().length ?? 0) > 0) return;
    for (const topic of this.redriven) {
      try {
        const { redriven, held } = await redriveDeadLetters(this.eventLog, topic);
        if (redriven > 0) this.log.log({ topic, redriven, held }, 're-drove dead letters');
      } catch (error) {
        this.log.warn({ topic, error: String(error) }, 'could not re-drive dead letters; trying again later');
      }
    }
  }

  on(): never {
    throw new Error('EventLogTransport does not emit status events');
  }

  unwrap<T>(): T {
    return this.eventLog as T;
  }

  private async deliver(
    topic: string,
    stage: string,
    messages: readonly ConsumedMessage[],
    context: BatchContext,
    run: (events: readonly EngramEvent[], context: BatchContext) => Promise<void>,
  ): Promise<void> {
    const metrics = this.options.metrics;
    metrics?.eventsConsumed.inc({ stage, topic }, messages.length);
    const valid: Delivery[] = [];
    const letters: DeadLetter[] = [];
    for (const message of messages) {
      if (message.shredded) continue;
      try {
        valid.push({ message, event: parseEvent(message.value) });
      } catch (error) {
        letters.push(this.letter(message, stage, 'invalid', error, 0));
      }
    }
    if (valid.length > 0) {
      const timer = metrics?.batchDuration.startTimer({ stage });
      this.traceBatch(stage, topic, valid);
      try {
        letters.push(...(await this.handle(stage, valid, context, run)));
      } finally {
        timer?.();
      }
    }
    // Written once the whole batch went through: a batch paused on a dependency is delivered again,
    // and dead-lettering before that would write its letters once per delivery.
    await this.deadLetter(topic, letters);
    this.resume(stage);
  }

  /**
   * Runs the batch; when it keeps failing, runs it again one event at a time so that only the
   * poison is isolated, and returns a letter for each event that still fails. Throws when a
   * dependency is unavailable (`pauseIfUnavailable`): the log delivers the batch again later.
   */
  private async handle(
    stage: string,
    valid: readonly Delivery[],
    context: BatchContext,
    run: (events: readonly EngramEvent[], context: BatchContext) => Promise<void>,
  ): Promise<DeadLetter[]> {
    try {
      await this.withRetries(stage, () =>
        run(
          valid.map((d) => d.event),
          context,
        ),
      );
      return [];
    } catch (error) {
      this.pauseIfUnavailable(stage, error);
    }
    const letters: DeadLetter[] = [];
    for (const delivery of valid) {
      try {
        await this.withRetries(stage, () => run([delivery.event], context));
      } catch (error) {
        this.pauseIfUnavailable(stage, error);
        letters.push(this.letter(delivery.message, stage, 'failed', error, this.attempts()));
      }
    }
    return letters;
  }

  /**
   * An error that stands for an unavailable dependency is thrown on to the event log, which commits
   * nothing and delivers the batch again after its backoff: the stage pauses. Any other error
   * returns, to be dead-lettered as the event's own fault.
   */
  private pauseIfUnavailable(stage: string, error: unknown): void {
    const outage = unavailableDependency(error);
    if (!outage) return;
    if (!this.paused.has(stage)) {
      this.log.warn({ stage, dependency: outage.dependency, error: outage.message }, 'stage paused: a dependency is unavailable');
    }
    this.paused.set(stage, outage.dependency);
    this.options.monitor?.failed(outage.dependency, outage);
    this.options.monitor?.stagePaused(stage, outage.dependency);
    throw error;
  }

  /** After a batch went through: a paused stage resumes, and the dependency it waited for answered it. */
  private resume(stage: string): void {
    const dependency = this.paused.get(stage);
    if (dependency === undefined) return;
    this.paused.delete(stage);
    this.log.log({ stage, dependency }, 'stage resumed: the dependency is back');
    this.options.monitor?.answered(dependency);
    this.options.monitor?.stageResumed(stage);
  }

  /**
   * One debug line per batch: the stage and the correlation ids it handles, so
   * one turn can be followed through every stage (`grep <correlationId>`).
   * Ids only: never a payload, so never turn text or PII.
   */
  private traceBatch(stage: string, topic: string, deliveries: readonly Delivery[]): void {
    // pino drops the line below LOG_LEVEL=debug; collecting the ids costs one pass over the batch.
    const correlationIds = [...new Set(deliveries.map((d) => d.event.correlationId))];
    this.log.debug({ stage, topic, events: deliveries.length, correlationIds }, 'stage batch');
  }

  private attempts(): number {
    return Math.max(1, this.options.attempts ?? 3);
  }

  private async withRetries(stage: string, work: () => Promise<void>): Promise<void> {
    let delay = this.options.retryDelayMs ?? 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        this.options.metrics?.handlerFailures.inc({ stage });
        // An outage is waited out by the log's backoff, not spent on the attempts meant for poison.
        if (attempt >= this.attempts() || unavailableDependency(error)) throw error;
        this.log.warn({ stage, attempt, error: String(error) }, 'stage handler failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  private letter(message: ConsumedMessage, stage: string, reason: DeadLetter['reason'], error: unknown, attempts: number): DeadLetter {
    return {
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      key: message.key,
      stage,
      reason,
      error: describeError(error),
      attempts,
      failedAt: new Date().toISOString(),
      raw: message.raw,
    };
  }

  private async deadLetter(topic: string, letters: readonly DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    for (const letter of letters) {
      this.options.metrics?.deadLettered.inc({ stage: letter.stage, reason: letter.reason });
      this.log.error(
        { topic, partition: letter.partition, offset: letter.offset, stage: letter.stage, reason: letter.reason, error: letter.error },
        'event dead-lettered',
      );
    }
    await this.eventLog.append(
      deadLetterTopic(topic),
      letters.map((letter) => ({ key: letter.key, value: letter })),
    );
  }
}

function describeError(error: unknown): string {
  if (error instanceof InvalidEventError || error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null) return JSON.stringify(error);
  return String(error);
}
