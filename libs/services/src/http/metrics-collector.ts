import { Inject, Injectable } from '@nestjs/common';
import {
  FactStoreVersions,
  type ProjectionVersions,
  RebuildLedger,
  type RebuildPhase,
  type RebuildRecord,
  SearchIndexVersions,
  SessionStoreVersions,
} from '@engram/ports';
import { PipelineProgress } from '../pipeline/pipeline-progress';
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
  ) {
    this.versions = [facts, sessions, search];
  }

  /** The Prometheus text exposition, after refreshing the scrape-time gauges. */
  async scrape(): Promise<string> {
    await this.collect();
    return this.metrics.registry.metrics();
  }

  private async collect(): Promise<void> {
    const { consumerLag, projectionActiveVersion, projectionStoredVersions, rebuildApplied, rebuildPhase } = this.metrics;
    for (const stage of await this.progress.partitionLags()) {
      consumerLag.set({ topic: stage.topic, group: stage.group, partition: String(stage.partition) }, stage.lag);
    }
    for (const { topic, count } of await this.progress.deadLetters()) this.metrics.deadLettersWaiting.set({ topic }, count);
    for (const versions of this.versions) {
      projectionActiveVersion.set({ projection: versions.projection }, await versions.active());
      projectionStoredVersions.set({ projection: versions.projection }, (await versions.list()).length);
    }
    // Only the latest rebuild of each projection: older ones would leave stale series behind.
    rebuildApplied.reset();
    rebuildPhase.reset();
    for (const record of latestPerProjection(await this.ledger.list())) {
      const version = String(record.version);
      rebuildApplied.set({ projection: record.projection, version }, record.done ?? 0);
      for (const phase of PHASES) {
        rebuildPhase.set({ projection: record.projection, version, phase }, phase === record.phase ? 1 : 0);
      }
    }
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
