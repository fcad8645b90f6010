import { Inject, Injectable, Logger } from '@nestjs/common';
import { EngramEvent, MemoryDecision, parseEvent, Topics } from '@engram/contracts';
import { EventLog, FactStore, FactStoreVersions, lag, ProjectionVersions, RebuildLedger, SearchIndex, SearchIndexVersions } from '@engram/ports';
import { AccessProjection } from './access.projection';
import { consumeUpTo } from './consume-up-to';
import { EventPublisher } from './event-publisher';
import { FactsProjection } from './facts.projection';
import { replayReprocessed, reprocessLineageOf, withoutStaleDecisions } from './reprocess';
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
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
    @Inject(FactStoreVersions) private readonly factVersions: ProjectionVersions<FactStore>,
    @Inject(SearchIndexVersions) private readonly searchVersions: ProjectionVersions<SearchIndex>,
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
    // A version built by `engram reprocess` is its run's topic, then memory.facts.v1 from the switch.
    const versions = projection.name === 'facts' ? this.factVersions : projection.name === 'search' ? this.searchVersions : undefined;
    const lineage = versions && (await reprocessLineageOf(this.ledger, projection.name as 'facts' | 'search', await versions.active()));
    if (lineage) {
      await projection.truncate();
      const total = lag(await this.eventLog.endPosition(lineage.topic), {}) + lag(await this.eventLog.endPosition(topic), {});
      let done = 0;
      onProgress?.({ projection: projection.name, done, total });
      // The facts store (rebuilt first) decides which live decisions around the switch were stale.
      const facts = await this.factVersions.open(await this.factVersions.active());
      const apply = async (events: readonly EngramEvent[]) => projection.apply(await withoutStaleDecisions(facts, events));
      await replayReprocessed(this.eventLog, lineage, topic, `${projection.group}-reprocessed`, apply, {
        onBatch: (n) => onProgress?.({ projection: projection.name, done: Math.min((done += n), total), total }),
      });
      // The live group goes on from the end, as after a plain replay.
      await this.eventLog.resetGroup(topic, projection.group, { to: 'beginning' });
      await consumeUpTo(this.eventLog, topic, projection.group, await this.eventLog.endPosition(topic), async () => undefined, { maxBatchSize: 2000 });
      return total;
    }
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
          if (message.shredded) continue;
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
