import type { SnapshotComparison } from './snapshots';
import type { LatencySummary } from './statistics';
import type { StoreRequestRates } from './store-requests';

export interface BenchOptions {
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  readonly json: boolean;
  readonly url?: string;
  readonly apiKey?: string;
  /** With --url: the `/metrics` of every process of the deployment, whose store requests are summed (default: the `/metrics` of `url`). */
  readonly metricsUrls?: readonly string[];
  /** With --url: the key `/metrics` asks for when the server has API keys (ENGRAM_METRICS_KEY or the admin key). */
  readonly metricsKey?: string;
  /** Turns per POST in the ingest phase. */
  readonly turnsPerRequest: number;
  /** Steady ingest rate of the freshness phase, turns/s, and how many probes it measures. */
  readonly freshnessRate: number;
  readonly freshnessSamples: number;
  /** Recall questions asked sequentially, then (as many again) by `concurrency` clients. */
  readonly queries: number;
  readonly concurrency: number;
  /**
   * Instead of phases 2–4: every projection rebuilt online (through HTTP) while turns keep coming
   * at `rebuildIngestRate` turns/s and recall keeps answering; then a from-scratch rebuild must
   * give the same read side.
   */
  readonly onlineRebuild?: boolean;
  readonly rebuildIngestRate: number;
  readonly adminKey?: string;
  readonly print?: (line: string) => void;
  readonly progress?: boolean;
}

export interface BenchReport {
  readonly mode: 'embedded' | 'http';
  readonly embedder: string | null;
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  readonly memories: number;
  readonly ingest: { readonly turnsPerSec: number; readonly turns: number; readonly seconds: number; readonly turnsPerRequest: number };
  readonly freshnessMs: {
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly samples: number;
    readonly missed: number;
    readonly rate: number;
  };
  readonly recallMs: LatencySummary & { readonly concurrent: LatencySummary & { readonly clients: number } };
  readonly rebuild: { readonly eventsPerSec: number | null; readonly events: number | null; readonly seconds: number | null };
  /**
   * Requests the engram sent to its stores (`engram_store_requests_total`, read before and after each
   * phase): per 1,000 turns of the ingest and freshness phases (until nothing was pending), per
   * question of the recall phase (sequential and concurrent). Null when nothing was counted (embedded on SQLite).
   */
  readonly storeRequests: {
    readonly ingestPer1000Turns: StoreRequestRates;
    readonly freshnessPer1000Turns: StoreRequestRates | null;
    readonly perRecall: StoreRequestRates | null;
  } | null;
  /**
   * With --url: the CPU the engram's processes used (every --metrics-url's process CPU, summed), per
   * turn of the ingest phase (until nothing was pending) and per recall question: what engram itself
   * costs distributed, to set beside an embedded run's CPU per turn. Null in-process.
   */
  readonly serverCpu: { readonly ingestMsPerTurn: number | null; readonly recallMsPerQuery: number | null } | null;
  /** With --online-rebuild (phases 2–4 are skipped then: their figures are zeros / null). */
  readonly onlineRebuild?: OnlineRebuildReport;
  /** Of this process (the whole embedded engram); null with --url, where the server is another process. */
  readonly peakRssMb: number | null;
  /** Peaks of the V8 heap and of memory outside it, and the CPU this process used: to read the figures on a busy machine. */
  readonly process: {
    readonly peakHeapMb: number;
    readonly peakExternalMb: number;
    /** Peak RSS reached by the end of each phase. */
    readonly peakRssMbAfter: Readonly<Record<'ingest' | 'freshness' | 'recall' | 'rebuild', number>>;
    readonly cpuSeconds: number;
    readonly wallSeconds: number;
    /**
     * CPU seconds this process used in each phase, and throughput per CPU second: what a phase
     * costs, which a shared machine's load does not change as much as turns/s (embedded only).
     */
    readonly phaseCpuSeconds: Readonly<Record<'ingest' | 'freshness' | 'recall' | 'rebuild', number>> | null;
    readonly ingestTurnsPerCpuSecond: number | null;
    readonly rebuildEventsPerCpuSecond: number | null;
    /** CPU of the recall phase's questions alone (sequential and concurrent) per question; without the listing of every user's memories that ends the phase, whose cost grows with the number of users. */
    readonly recallCpuMsPerQuery: number | null;
  };
}

export const FRESHNESS_TIMEOUT_MS = 30_000;

export interface OnlineRebuildReport {
  /** Events of the rebuilds' input topics when the rebuild started, each topic once (memory.facts.v1 + memory.screened.v1). */
  readonly logEvents: number;
  /** Under ingest: messages each projection's rebuild applied (facts and search both read memory.facts.v1). */
  readonly rebuilt: readonly { readonly projection: string; readonly version: number; readonly events: number }[];
  readonly events: number;
  /** From the POST until every projection swapped; events/s over that. */
  readonly secondsToSwap: number;
  readonly eventsPerSec: number;
  /** Until every rebuild was done (the grace period after the swap included). */
  readonly secondsToDone: number;
  /** GET /v1/admin/rebuilds answers other than 200 while following both rebuilds (retried). */
  readonly statusErrors: number;
  /** Turns accepted while the rebuild ran (asked `rate` turns/s, one per POST, sequential: `turnsPerSec` is what the server took). */
  readonly ingest: { readonly rate: number; readonly turns: number; readonly turnsPerSec: number; readonly failures: number };
  readonly recall: LatencySummary & {
    readonly calls: number;
    readonly failures: number;
    readonly errors: number;
    readonly missing: number;
    readonly probes: number;
  };
  /** The second rebuild: the same log, nothing ingested meanwhile. */
  readonly fromScratch: { readonly events: number; readonly secondsToSwap: number; readonly eventsPerSec: number };
  readonly equal: boolean;
  readonly comparison: SnapshotComparison;
}
