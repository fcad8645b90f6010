/**
 * What a bench phase cost the stores: `engram_store_requests_total` read from the server's
 * `/metrics` (every process of a distributed deployment: `--metrics-url` once per process) before
 * and after the phase, the difference divided by the phase's turns or questions. A scrape's own
 * store reads are not counted by the server, so reading the figures does not move them (MongoDB,
 * Elasticsearch; Kafka's answers reach the counter outside the scrape, see docs/operations.md).
 */

/** Requests per store and per `store operation`, as counted: `{ mongodb: 12, 'mongodb find': 7, … }`. */
export type StoreRequestCounts = Readonly<Record<string, number>>;

/** A sample line; label values may hold `}` (`POST /{index}/_bulk`), so quoted strings are read whole. */
const SAMPLE = /^engram_store_requests_total\{((?:[^"}]|"(?:[^"\\]|\\.)*")*)\}\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The counter's samples in a Prometheus text exposition, summed per store and per store and operation. */
export function parseStoreRequests(exposition: string): StoreRequestCounts {
  const counts: Record<string, number> = {};
  for (const line of exposition.split('\n')) {
    const sample = SAMPLE.exec(line);
    if (!sample) continue;
    const labels = Object.fromEntries([...sample[1].matchAll(LABEL)].map(([, name, value]) => [name, value.replace(/\\(.)/g, '$1')]));
    const value = Number(sample[2]);
    if (!labels.store || !Number.isFinite(value)) continue;
    counts[labels.store] = (counts[labels.store] ?? 0) + value;
    const key = `${labels.store} ${labels.operation ?? ''}`;
    counts[key] = (counts[key] ?? 0) + value;
  }
  return counts;
}

/** Sums of several processes' counts. */
export function addCounts(all: readonly StoreRequestCounts[]): StoreRequestCounts {
  const sum: Record<string, number> = {};
  for (const counts of all) for (const [key, value] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + value;
  return sum;
}

export interface StoreRequestRates {
  /** Requests per store, per `per` units of work (1,000 turns, one recall), two decimals. */
  readonly mongodb: number;
  readonly elasticsearch: number;
  readonly kafka: number;
  /** The same per operation (`mongodb find`, `elasticsearch POST /{index}/_bulk`…), only those that happened, most first. */
  readonly operations: Readonly<Record<string, number>>;
}

/** (after − before) per `units` of work, scaled by `per` (1,000 for "per 1,000 turns"). */
export function storeRequestRates(before: StoreRequestCounts, after: StoreRequestCounts, units: number, per = 1): StoreRequestRates {
  const rate = (key: string) => Math.round((100 * ((after[key] ?? 0) - (before[key] ?? 0)) * per) / Math.max(units, 1)) / 100;
  const operations = Object.keys(after)
    .filter((key) => key.includes(' ') && rate(key) > 0)
    .map((key) => [key, rate(key)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    mongodb: rate('mongodb'),
    elasticsearch: rate('elasticsearch'),
    kafka: rate('kafka'),
    operations: Object.fromEntries(operations),
  };
}

/** What the engram's processes had counted at one moment: their store requests and, read over HTTP, the CPU they had used. */
export interface ServerCounters {
  readonly requests: StoreRequestCounts;
  /** CPU seconds of every process read (`engram_process_process_cpu_seconds_total`, summed); null in-process. */
  readonly cpuSeconds: number | null;
}

const CPU_SAMPLE = /^engram_process_process_cpu_seconds_total(?:\{[^}]*\})?\s+(\S+)/m;

/** The process's CPU seconds (user + system) in a Prometheus text exposition; 0 when it is not there. */
export function parseProcessCpuSeconds(exposition: string): number {
  const value = Number(CPU_SAMPLE.exec(exposition)?.[1]);
  return Number.isFinite(value) ? value : 0;
}

/** Reads and sums the counters of every process's `/metrics`; a process that does not answer 200 fails the bench, naming it. */
export function metricsReader(urls: readonly string[], key?: string): () => Promise<ServerCounters> {
  return async () => {
    const expositions = await Promise.all(
      urls.map(async (url) => {
        const response = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
        if (!response.ok)
          throw new Error(`${url} answered ${response.status}: give --metrics-key (or ENGRAM_METRICS_KEY) for a server with API keys`);
        return response.text();
      }),
    );
    return {
      requests: addCounts(expositions.map(parseStoreRequests)),
      cpuSeconds: expositions.reduce((sum, exposition) => sum + parseProcessCpuSeconds(exposition), 0),
    };
  };
}
