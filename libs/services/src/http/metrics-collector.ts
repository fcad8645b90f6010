import { Inject, Injectable } from '@nestjs/common';
import {
  FactStoreVersions,
  type ProjectionVersions,
  RebuildLedger,
  type RebuildPhase,
  type RebuildRecord,
  SearchIndexVersions,
  SessionStoreVersions,
  unavailableDependency,
} from '@engram/ports';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { EngramMetrics } from '../observability/metrics';

const PHASES: readonly RebuildPhase[] = ['replaying', 'swapped', 'done', 'failed'];

/**
 * What `/metrics` reads from the stores at scrape time rather than counting as
 * it happens: consumer lag per group and partition, the dead letters waiting for a replay, each projection's active
 * and stored versions, and the progress of each projection's latest rebuild.
 * Every engram process serves it, workers included, so any one of them shows
 * the deployment's lag and versions (they live in the shared log and stores).
 */
@Injectable()
export class MetricsCollector {
  private readonly versions: readonly ProjectionVersions<unknown>[];

  constructor(
    private readonly metrics: EngramMetrics,
    private readonly progress: PipelineProgress,
    @Inject(FactStoreVersions) facts: ProjectionVersions<unknown>,
    @Inject(SessionStoreVersions) sessions: ProjectionVersions<unknown>,
    @Inject(SearchIndexVersions) search: ProjectionVersions<unknown>,
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
    private readonly dependencies: DependencyMonitor,
  ) {
    this.versions = [facts, sessions, search];
  }

  /** The Prometheus text exposition, after refreshing the scrape-time gauges. */
  async scrape(): Promise<string> {
    await this.metrics.whileScraping(() => this.collect());
    return this.metrics.registry.metrics();
  }

  /**
   * Each part read from its store; a part whose store is unavailable keeps its last values, so that
   * a scrape during an outage still answers (engram_dependency_up says which is down).
   */
  private async collect(): Promise<void> {
    const { consumerLag, projectionActiveVersion, projectionStoredVersions } = this.metrics;
    await unlessUnavailable(async () => {
      const [lags, letters] = await this.dependencies.statusRead(() =>
        Promise.all([this.progress.partitionLags(), this.progress.deadLetters()]),
      );
      for (const stage of lags) consumerLag.set({ topic: stage.topic, group: stage.group, partition: String(stage.partition) }, stage.lag);
      for (const { topic, count } of letters) this.metrics.deadLettersWaiting.set({ topic }, count);
    });
    await unlessUnavailable(async () => {
      for (const versions of this.versions) {
        projectionActiveVersion.set({ projection: versions.projection }, await versions.active());
        projectionStoredVersions.set({ projection: versions.projection }, (await versions.list()).length);
      }
    });
    await unlessUnavailable(() => this.rebuilds());
  }

  private async rebuilds(): Promise<void> {
    const { rebuildApplied, rebuildPhase } = this.metrics;
    const records = latestPerProjection(await this.ledger.list());
    // Only the latest rebuild of each projection: older ones would leave stale series behind.
    rebuildApplied.reset();
    rebuildPhase.reset();
    for (const record of records) {
      const version = String(record.version);
      rebuildApplied.set({ projection: record.projection, version }, record.done ?? 0);
      for (const phase of PHASES) {
        rebuildPhase.set({ projection: record.projection, version, phase }, phase === record.phase ? 1 : 0);
      }
    }
  }
}

/** Runs `read`; an outage of a dependency is let go (the gauges keep their last values), any other error is not. */
async function unlessUnavailable(read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (!unavailableDependency(error)) throw error;
  }
}

function latestPerProjection(records: readonly RebuildRecord[]): RebuildRecord[] {
  const latest = new Map<string, RebuildRecord>();
  for (const record of records) {
    const seen = latest.get(record.projection);
    if (!seen || record.version > seen.version) latest.set(record.projection, record);
  }
  return [...latest.values()];
}
