import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { EngramEvent, InvalidEventError, parseEvent } from '@engram/contracts';
import type { BatchContext, ConsumedMessage, EventLog, Subscription } from '@engram/ports';

/**
 * The pattern every stage handler subscribes with:
 * `@EventPattern({ topic: Topics.turns, group: 'filter' })`.
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

/**
 * A NestJS microservice transport over the EventLog port, so the same
 * `@EventPattern` handlers run on Kafka and on the embedded SQLite log.
 * Nest's own Kafka transport hands over one message per call; engram's
 * projections want batches, so this strategy delivers a whole validated batch
 * and lets the event log commit only after the handler resolved.
 */
export class EventLogTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: Subscription[] = [];
  private readonly log = new Logger(EventLogTransport.name);

  constructor(
    private readonly eventLog: EventLog,
    private readonly options: { topicPrefix?: string; maxBatchSize?: number } = {},
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [key, handler] of this.messageHandlers) {
        const pattern = JSON.parse(key) as StagePattern;
        const topic = `${this.options.topicPrefix ?? ''}${pattern.topic}`;
        await this.eventLog.ensureTopics([topic]);
        const subscription = await this.eventLog.subscribe(
          { topic, group: pattern.group, maxBatchSize: this.options.maxBatchSize },
          async (messages, context) => {
            const batch: StageBatch = { events: this.validate(messages, pattern), context };
            await lastValueFrom(this.transformToObservable(await handler(batch)), { defaultValue: undefined });
          },
        );
        this.subscriptions.push(subscription);
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  on(): never {
    throw new Error('EventLogTransport does not emit status events');
  }

  unwrap<T>(): T {
    return this.eventLog as T;
  }

  /** Invalid events are logged and skipped so one poison message never blocks a partition. */
  private validate(messages: readonly ConsumedMessage[], pattern: StagePattern): EngramEvent[] {
    const events: EngramEvent[] = [];
    for (const message of messages) {
      try {
        events.push(parseEvent(message.value));
      } catch (error) {
        const reason = error instanceof InvalidEventError ? error.message : String(error);
        this.log.error(
          { topic: message.topic, partition: message.partition, offset: message.offset, group: pattern.group, reason },
          'skipping invalid event',
        );
      }
    }
    return events;
  }
}
