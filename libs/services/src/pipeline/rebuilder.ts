import { Inject, Injectable, Logger } from '@nestjs/common';
import { EngramEvent, MemoryDecision, parseEvent, Topics } from '@engram/contracts';
import { EventLog, lag } from '@engram/ports';
import { AccessProjection } from './access.projection';
import { consumeUpTo } from './consume-up-to';
import { EventPublisher } from './event-publisher';
import { FactsProjection } from './facts.projection';
import { SearchProjection } from './search.projection';
import { SessionsProjection } from './sessions.projection';

export const PROJECTION_NAMES = ['facts', 'sessions', 'search', 'access'] as const;
export type ProjectionName = (typeof PROJECTION_NAMES)[number];

interface Replayable {
  readonly name: ProjectionName;
  readonly topic: string;
  /** The consumer group that feeds the projection in normal operation. */
  readonly group: string;
  apply(events: readonly EngramEvent[]): Promise<void>;
  truncate(): Promise<void>;
}

export interface RebuildProgress {
  readonly projection: ProjectionName;
  readonly done: number;
  readonly total: number;
}

/**
 * Drops projections and replays the log into them from the start. Decisions
 * are replayed, never re-decided: the facts projection comes from
 * memory.facts.v1, not from re-running the resolver.
 * Offline: no stage of the same data directory may be running.
 */
@Injectable()
export class Rebuilder {
  private readonly log = new Logger(Rebuilder.name);
  private readonly projections: readonly Replayable[];

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    private readonly publisher: EventPublisher,
    facts: FactsProjection,
    sessions: SessionsProjection,
    search: SearchProjection,
    access: AccessProjection,
  ) {
    const decisions = (apply: (e: readonly MemoryDecision[]) => Promise<void>) => (events: readonly EngramEvent[]) =>
      apply(events as readonly MemoryDecision[]);
    this.projections = [
      { name: 'facts', topic: Topics.facts, group: 'facts-rebuild', apply: decisions((e) => facts.apply(e)), truncate: () => facts.truncate() },
      { name: 'sessions', topic: Topics.screened, group: 'sessions', apply: (e) => sessions.apply(e), truncate: () => sessions.truncate() },
      { name: 'search', topic: Topics.facts, group: 'indexer', apply: decisions((e) => search.apply(e)), truncate: () => search.truncate() },
      { name: 'access', topic: Topics.access, group: 'access', apply: (e) => access.apply(e), truncate: () => access.truncate() },
    ];
  }

  async rebuild(names: readonly ProjectionName[], onProgress?: (p: RebuildProgress) => void): Promise<{ events: number }> {
    let events = 0;
    for (const projection of this.projections.filter((p) => names.includes(p.name))) {
      events += await this.replay(projection, onProgress);
    }
    return { events };
  }

  private async replay(projection: Replayable, onProgress?: (p: RebuildProgress) => void): Promise<number> {
    const topic = this.publisher.topic(projection.topic);
    await this.eventLog.ensureTopics([topic]);
    await projection.truncate();
    await this.eventLog.resetGroup(topic, projection.group, { to: 'beginning' });
    const end = await this.eventLog.endPosition(topic);
    const total = lag(end, {});
    let done = 0;
    onProgress?.({ projection: projection.name, done, total });
    if (total === 0) return 0;
    await consumeUpTo(
      this.eventLog,
      topic,
      projection.group,
      end,
      async (messages) => {
        const events: EngramEvent[] = [];
        for (const message of messages) {
          try {
            events.push(parseEvent(message.value));
          } catch (error) {
            this.log.error({ topic, offset: message.offset, reason: String(error) }, 'skipping invalid event during rebuild');
          }
        }
        await projection.apply(events);
        done += messages.length;
        onProgress?.({ projection: projection.name, done: Math.min(done, total), total });
      },
      { maxBatchSize: 2000 },
    );
    return total;
  }
}
