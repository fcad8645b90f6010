import { Inject, Injectable, Logger } from '@nestjs/common';
import { ExtractionOptions, PipelineOptions, ReplayOptions, ResolverOptions } from '@engram/config';
import { STAGES } from '@engram/contracts';
import { ExtractionStrategy } from '@engram/domain';
import { EventLog, lag, LogPosition, RebuildLedger, RebuildRecord, ReprocessLineage, VersionedProjection } from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';
import { EventPublisher } from '../pipeline/event-publisher';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import { isReprocessRun } from './lineage';
import { ReplayProjections } from './replay-projections';
import { replayReprocessed } from './replay-reprocessed';
import {
  ActivationResult,
  extractionStrategyFor,
  parseFrom,
  ReprocessConflict,
  ReprocessOptions,
  ReprocessProgress,
  ReprocessResult,
} from './reprocess-options';
import { ReprocessRun } from './reprocess-run';
import { withoutStaleDecisions } from './stale-decisions';

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
    private readonly projections: ReplayProjections,
    private readonly publisher: EventPublisher,
    private readonly metrics: EngramMetrics,
    private readonly progress: PipelineProgress,
    @Inject(PipelineOptions) private readonly pipeline: PipelineOptions,
    @Inject(ResolverOptions) private readonly resolver: ResolverOptions,
    @Inject(ReplayOptions) private readonly replay: ReplayOptions,
    @Inject(ExtractionOptions) private readonly extraction: ExtractionOptions,
  ) {}

  private topic(name: string): string {
    return this.publisher.topic(name);
  }

  /** A run over the versions `lineage` names, fed from this deployment's turns and extracted topics. */
  private open(lineage: ReprocessLineage, strategy: ExtractionStrategy): Promise<ReprocessRun> {
    return ReprocessRun.open(
      {
        eventLog: this.eventLog,
        pipeline: this.pipeline,
        resolver: this.resolver,
        extraction: this.extraction,
        replay: this.replay,
        metrics: this.metrics,
        projections: this.projections,
        log: this.log,
        turnsTopic: this.topic(STAGES.filter.input),
        extractedTopic: this.topic(STAGES.resolver.input),
      },
      lineage,
      strategy,
    );
  }

  /** Builds the new facts and search versions; they stay inactive until `activate`. */
  async run(options: ReprocessOptions): Promise<ReprocessResult> {
    const strategy = extractionStrategyFor(this.extraction, options.extractorVersion);
    const from = parseFrom(options.from);
    await this.refuseIfBusy();
    const factsVersion = Math.max(await this.projections.facts.active(), ...(await this.projections.facts.list())) + 1;
    const searchVersion = Math.max(await this.projections.search.active(), ...(await this.projections.search.list())) + 1;
    const runId = `v${factsVersion}-${new Date().toISOString().replace(/[-:.]/g, '').toLowerCase()}`;
    const lineage: ReprocessLineage = {
      runId,
      topic: this.topic(`memory.reprocess.${runId}`),
      extractorVersion: strategy.version,
      from: from === null ? 'beginning' : new Date(from).toISOString(),
      factsVersion,
      searchVersion,
    };
    const run = await this.open(lineage, strategy);
    await this.eventLog.ensureTopics([lineage.topic, this.topic(STAGES.filter.input), this.topic(STAGES.resolver.input)]);
    await this.eventLog.resetGroup(this.topic(STAGES.filter.input), run.group, { to: 'beginning' });
    await this.eventLog.resetGroup(this.topic(STAGES.resolver.input), run.commandsGroup, { to: 'beginning' });
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
    const records = [
      record('facts', factsVersion, await this.projections.facts.active()),
      record('search', searchVersion, await this.projections.search.active()),
    ];
    for (const r of records) await this.ledger.save(r);
    this.log.log({ runId, extractorVersion: strategy.version, from: lineage.from, factsVersion, searchVersion }, 'reprocess started');
    try {
      const carried = from === null ? 0 : await run.carryOver(from, options.onProgress);
      await run.catchUp('reprocessing', options.onProgress);
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
      await this.projections.facts.drop(factsVersion).catch(() => undefined);
      await this.projections.search.drop(searchVersion).catch(() => undefined);
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
    const run = await this.open(lineage, extractionStrategyFor(this.extraction, lineage.extractorVersion));
    const turnsTopic = this.topic(STAGES.filter.input);
    const extractedTopic = this.topic(STAGES.resolver.input);
    const factsTopic = this.projections.topic('facts');
    const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;

    // Re-decide what arrived since the run, until the live pipeline and the log stand still.
    let switchPosition: LogPosition;
    for (let round = 0; ; round++) {
      const turnsEnd = await this.eventLog.endPosition(turnsTopic);
      const extractedEnd = await this.eventLog.endPosition(extractedTopic);
      await run.catchUp('catching up', options.onProgress);
      await this.waitDrained(drainTimeoutMs);
      switchPosition = await this.eventLog.endPosition(factsTopic);
      const still =
        lag(await this.eventLog.endPosition(turnsTopic), turnsEnd) === 0 &&
        lag(await this.eventLog.endPosition(extractedTopic), extractedEnd) === 0;
      if (still) break;
      if (round >= 20) throw new ReprocessConflict('turns keep arriving: activate in a quieter moment');
    }
    const previousFactsVersion = await this.projections.facts.active();
    const previousSearchVersion = await this.projections.search.active();
    await this.projections.search.activate(lineage.searchVersion);
    await this.projections.facts.activate(lineage.factsVersion);
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
    await new Promise((resolve) => setTimeout(resolve, options.overlapMs ?? 2 * this.pipeline.projectionPointerTtlMs));
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
      const versions = name === 'facts' ? this.projections.facts : this.projections.search;
      if ((await versions.active()) === v) throw new ReprocessConflict(`${name}@${v} is active: activate another version first`);
    }
    for (const [name, v] of targets) {
      await (name === 'facts' ? this.projections.facts : this.projections.search).drop(v);
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
