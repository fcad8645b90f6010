import { Inject, Injectable, Logger } from '@nestjs/common';
import { EngramEvent, PROJECTION_NAMES, ProjectionName, PROJECTIONS } from '@engram/contracts';
import { EventLog, lag, RebuildLedger } from '@engram/ports';
import { AccessProjection } from '../pipeline/access.projection';
import { FactsProjection } from '../pipeline/facts.projection';
import type { Projection } from '../pipeline/projection';
import { SearchProjection } from '../pipeline/search.projection';
import { SessionsProjection } from '../pipeline/sessions.projection';
import { consumeUpTo } from '../transport/consume-up-to';
import { reprocessLineageOf } from './lineage';
import { parseMessages } from './parse-messages';
import { ReplayProjections } from './replay-projections';
import { replayReprocessed } from './replay-reprocessed';
import { withoutStaleDecisions } from './stale-decisions';

/**
 * Events read per batch. A batch's decoded events (each decision a memory's whole state and
 * history) live until it is applied, long enough for the collector to copy and promote them: 2,000
 * made the rebuild's garbage old and cost 10 % more CPU than 500 (250 was no better than 500).
 */
const REPLAY_BATCH = 500;

/** Memories indexed per transaction when the search index is built from the facts. */
const INDEX_PAGE = 2000;

export interface RebuildProgress {
  /**
   * What the pass replays into: a projection. When facts and search are rebuilt together, `facts`
   * (one pass over memory.facts.v1) then `search`, built from the facts, whose `done` and `total`
   * count users.
   */
  readonly projection: string;
  readonly done: number;
  readonly total: number;
}

/**
 * Drops projections and replays the log into them from the start. Decisions
 * are replayed, never re-decided: the facts projection comes from
 * memory.facts.v1, not from re-running the resolver. Facts and search both
 * project memory.facts.v1: rebuilt together, one pass reads it (each decision,
 * a memory's whole state and history, is read, opened and validated once) and
 * feeds the facts, and the search index is then built from the facts' final
 * state — each memory at its newest revision, which is what replaying every
 * decision into the index leaves too, without indexing and then replacing the
 * revisions before it (a third of the decisions at the bench's 10k turns, and
 * replacing a document's FTS5 postings was the dearest statement of a rebuild).
 * Offline: no stage of the same data directory may be running.
 */
@Injectable()
export class Rebuilder {
  private readonly log = new Logger(Rebuilder.name);
  /** Every projection, in the topology's order (facts before search). */
  private readonly projections: readonly Projection[];
  private readonly facts: FactsProjection;
  private readonly search: SearchProjection;

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    private readonly registry: ReplayProjections,
    facts: FactsProjection,
    sessions: SessionsProjection,
    search: SearchProjection,
    access: AccessProjection,
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
  ) {
    this.facts = facts;
    this.search = search;
    const byName: Record<ProjectionName, Projection> = { facts, sessions, search, access };
    this.projections = PROJECTION_NAMES.map((name) => byName[name]);
  }

  /** Events applied, counted per projection (a decision feeding facts and search counts twice, as when replayed apart). */
  async rebuild(names: readonly ProjectionName[], onProgress?: (p: RebuildProgress) => void): Promise<{ events: number }> {
    let events = 0;
    for (const pass of await this.passes(names)) {
      events += pass.length === 1 ? await this.replay(pass[0], onProgress) : (await this.replayTogether(pass, onProgress)) * pass.length;
    }
    return { events };
  }

  /**
   * The projections in replay order, facts and search as one pass when both are asked for and
   * neither is a reprocessed version (whose search replay needs the facts store rebuilt first).
   */
  private async passes(names: readonly ProjectionName[]): Promise<Projection[][]> {
    const selected = this.projections.filter((p) => names.includes(p.name));
    const together =
      names.includes('facts') &&
      names.includes('search') &&
      !(await reprocessLineageOf(this.ledger, 'facts', await this.registry.facts.active())) &&
      !(await reprocessLineageOf(this.ledger, 'search', await this.registry.search.active()));
    if (!together) return selected.map((p) => [p]);
    const shared = selected.filter((p) => p.name === 'facts' || p.name === 'search');
    return selected.filter((p) => p.name !== 'search').map((p) => (p.name === 'facts' ? shared : [p]));
  }

  private async replay(projection: Projection, onProgress?: (p: RebuildProgress) => void): Promise<number> {
    const { group } = PROJECTIONS[projection.name];
    const topic = this.registry.topic(projection.name);
    // A version built by `engram reprocess` is its run's topic, then memory.facts.v1 from the switch.
    const versions = projection.name === 'facts' ? this.registry.facts : projection.name === 'search' ? this.registry.search : undefined;
    const lineage = versions && (await reprocessLineageOf(this.ledger, projection.name as 'facts' | 'search', await versions.active()));
    if (lineage) {
      await projection.truncate();
      const total = lag(await this.eventLog.endPosition(lineage.topic), {}) + lag(await this.eventLog.endPosition(topic), {});
      let done = 0;
      onProgress?.({ projection: projection.name, done, total });
      // The facts store (rebuilt first) decides which live decisions around the switch were stale.
      const facts = await this.registry.facts.open(await this.registry.facts.active());
      const apply = async (events: readonly EngramEvent[]) => projection.apply(await withoutStaleDecisions(facts, events));
      await replayReprocessed(this.eventLog, lineage, topic, `${group}-reprocessed`, apply, {
        onBatch: (n) => onProgress?.({ projection: projection.name, done: Math.min((done += n), total), total }),
      });
      // The live group goes on from the end, as after a plain replay.
      await this.eventLog.resetGroup(topic, group, { to: 'beginning' });
      await consumeUpTo(this.eventLog, topic, group, await this.eventLog.endPosition(topic), async () => undefined, {
        maxBatchSize: 2000,
      });
      return total;
    }
    return this.replayTogether([projection], onProgress);
  }

  /**
   * Replays the projections' common topic from the start on the last one's group (search's live
   * `indexer` when facts and search go together), parsing each event once for all of them; with
   * facts and search, the search index is built from the rebuilt facts at the end
   * (`indexFromFacts`). Returns the topic's events.
   */
  private async replayTogether(projections: readonly Projection[], onProgress?: (p: RebuildProgress) => void): Promise<number> {
    const topic = this.registry.topic(projections[0].name);
    const group = PROJECTIONS[projections[projections.length - 1].name].group;
    await this.eventLog.ensureTopics([topic]);
    for (const projection of projections) await projection.truncate();
    const fromFacts = projections.includes(this.facts) && projections.includes(this.search);
    const replayed = fromFacts ? projections.filter((p) => p !== this.search) : projections;
    const label = replayed.map((p) => p.name).join('+');
    await this.eventLog.resetGroup(topic, group, { to: 'beginning' });
    const end = await this.eventLog.endPosition(topic);
    const total = lag(end, {});
    let done = 0;
    onProgress?.({ projection: label, done, total });
    if (total === 0) return 0;
    await consumeUpTo(
      this.eventLog,
      topic,
      group,
      end,
      async (messages) => {
        const events = parseMessages(messages, (message, error) =>
          this.log.error({ topic, offset: message.offset, reason: String(error) }, 'skipping invalid event during rebuild'),
        );
        for (const projection of replayed) await projection.apply(events);
        done += messages.length;
        onProgress?.({ projection: label, done: Math.min(done, total), total });
      },
      { maxBatchSize: REPLAY_BATCH },
    );
    if (fromFacts) await this.indexFromFacts(onProgress);
    return total;
  }

  /** The search index from the facts projection's memories, a page at a time (progress in users). */
  private async indexFromFacts(onProgress?: (p: RebuildProgress) => void): Promise<void> {
    for await (const { memories, users, of } of this.facts.memories(INDEX_PAGE)) {
      await this.search.indexMemories(memories);
      onProgress?.({ projection: 'search', done: users, total: of });
    }
  }
}
