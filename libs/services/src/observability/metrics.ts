import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The stores whose requests engram counts (`engram_store_requests_total{store}`). */
export type CountedStore = 'mongodb' | 'elasticsearch' | 'kafka';

/**
 * Prometheus metrics, all named `engram_…`. One registry per process; the
 * stage transport, the publisher and recall record into it, `/metrics`
 * serves it.
 */
export class EngramMetrics {
  readonly registry = new Registry();

  readonly eventsConsumed = new Counter({
    name: 'engram_events_consumed_total',
    help: 'Events delivered to a stage, by stage (consumer group) and topic.',
    labelNames: ['stage', 'topic'] as const,
    registers: [this.registry],
  });

  readonly eventsPublished = new Counter({
    name: 'engram_events_published_total',
    help: 'Events appended to the log, by topic.',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });

  readonly batchDuration = new Histogram({
    name: 'engram_stage_batch_duration_seconds',
    help: 'Time a stage handler takes per batch.',
    labelNames: ['stage'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly handlerFailures = new Counter({
    name: 'engram_stage_failures_total',
    help: 'Stage handler attempts that threw (each retry counts).',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly deadLettered = new Counter({
    name: 'engram_dlq_events_total',
    help: 'Events sent to a dead-letter topic, by stage and reason (invalid | failed).',
    labelNames: ['stage', 'reason'] as const,
    registers: [this.registry],
  });

  readonly dependencyUp = new Gauge({
    name: 'engram_dependency_up',
    help: 'Per dependency this process calls (embedder, llm): 1 while it answers, 0 since a call found it unreachable or answering "later".',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  readonly stagePaused = new Gauge({
    name: 'engram_stage_paused',
    help: 'Per stage: 1 while it waits for an unavailable dependency (its batch retried with backoff, nothing dead-lettered), else 0.',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly deadLettersWaiting = new Gauge({
    name: 'engram_dead_letters',
    help: 'Dead letters `engram dlq replay` has not gone past, per topic (collected on scrape).',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });

  readonly undecryptable = new Counter({
    name: 'engram_events_undecryptable_total',
    help: "Events skipped because their data key was destroyed (a forgotten user's), by topic.",
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });

  readonly recallDuration = new Histogram({
    name: 'engram_recall_duration_seconds',
    help: 'Recall latency, end to end inside the service.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  readonly consumerLag = new Gauge({
    name: 'engram_consumer_lag',
    help: 'Events behind the end of the topic, per consumer group and partition (collected on scrape).',
    labelNames: ['topic', 'group', 'partition'] as const,
    registers: [this.registry],
  });

  readonly projectionActiveVersion = new Gauge({
    name: 'engram_projection_active_version',
    help: 'The version of each projection that readers and live writers use (collected on scrape).',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });

  readonly projectionStoredVersions = new Gauge({
    name: 'engram_projection_stored_versions',
    help: 'Versions of each projection whose data exists: more than 1 while a rebuild or a grace period runs (collected on scrape).',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });

  readonly rebuildApplied = new Gauge({
    name: 'engram_rebuild_applied_events',
    help: "Events applied to the version a projection's latest rebuild builds, as of its last checkpoint (collected on scrape).",
    labelNames: ['projection', 'version'] as const,
    registers: [this.registry],
  });

  readonly rebuildPhase = new Gauge({
    name: 'engram_rebuild_phase',
    help: "1 for the phase of each projection's latest rebuild (replaying, swapped, done, failed), 0 for the others (collected on scrape).",
    labelNames: ['projection', 'version', 'phase'] as const,
    registers: [this.registry],
  });

  readonly throttled = new Counter({
    name: 'engram_ingest_throttled_total',
    help: 'Ingest requests answered 429, by reason (lag | rate).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly storeRequests = new Counter({
    name: 'engram_store_requests_total',
    help:
      'Requests sent to a store, by store (mongodb | elasticsearch | kafka) and operation (the MongoDB command, the Elasticsearch method and ' +
      'path pattern, the Kafka API); those a /metrics scrape makes to collect its gauges are left out (Kafka: kept, see docs/operations.md).',
    labelNames: ['store', 'operation'] as const,
    registers: [this.registry],
  });

  /** Set while a scrape collects its gauges: what it asks the stores is not what the figures measure. */
  private readonly scraping = new AsyncLocalStorage<true>();

  /** Counts one request to a store, unless a scrape made it. Called by the clients' monitoring hooks (bindings/). */
  countStoreRequest(store: CountedStore, operation: string): void {
    if (this.scraping.getStore()) return;
    this.storeRequests.inc({ store, operation });
  }

  /** Runs `collect` with its store requests left uncounted (they follow its promises, not the caller's). */
  whileScraping<T>(collect: () => Promise<T>): Promise<T> {
    return this.scraping.run(true, collect);
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'engram_process_' });
  }
}
