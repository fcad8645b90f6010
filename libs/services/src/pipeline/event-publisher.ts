import { Inject, Injectable } from '@nestjs/common';
import { PipelineOptions } from '@engram/config';
import { deployedTopic, EngramEvent, partitionKey } from '@engram/contracts';
import { EventLog, LogPosition } from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';

/** Appends events to a topic, keyed by tenant and user. */
@Injectable()
export class EventPublisher {
  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(PipelineOptions) private readonly pipeline: PipelineOptions,
    private readonly metrics: EngramMetrics,
  ) {}

  topic(name: string): string {
    return deployedTopic(this.pipeline.topicPrefix, name);
  }

  async publish(topic: string, events: readonly EngramEvent[]): Promise<LogPosition> {
    if (events.length === 0) return {};
    this.metrics.eventsPublished.inc({ topic }, events.length);
    return this.eventLog.append(
      this.topic(topic),
      events.map((event) => ({ key: partitionKey(event.tenantId, event.userId), value: event })),
    );
  }
}
