import { type BenchReport, FRESHNESS_TIMEOUT_MS } from './options';
import type { StoreRequestRates } from './store-requests';

/** `MongoDB 41.2, Elasticsearch 10, Kafka 96.5 (find 20, update 10, …)`: the stores, then the operations that cost most. */
function formatRates(rates: StoreRequestRates): string {
  const top = Object.entries(rates.operations)
    .slice(0, 6)
    .map(([operation, n]) => `${operation} ${n}`)
    .join(', ');
  return `MongoDB ${rates.mongodb}, Elasticsearch ${rates.elasticsearch}, Kafka ${rates.kafka}${top ? ` (${top})` : ''}`;
}

function storeLines(stores: BenchReport['storeRequests']): string[] {
  if (!stores) return [];
  return [
    `stores     per 1,000 turns ingested: ${formatRates(stores.ingestPer1000Turns)}`,
    ...(stores.freshnessPer1000Turns
      ? [`           per 1,000 turns at the freshness rate: ${formatRates(stores.freshnessPer1000Turns)}`]
      : []),
    ...(stores.perRecall ? [`           per recall: ${formatRates(stores.perRecall)}`] : []),
  ];
}

export function formatBenchReport(report: BenchReport): string {
  const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);
  const r = report.recallMs;
  const o = report.onlineRebuild;
  const phases = o
    ? [
        `online rebuild of ${o.logEvents} log events (facts + screened topics) under ingest: ${o.events} events applied (${o.rebuilt.map((p) => `${p.projection} ${p.events}`).join(', ')}), ` +
          `${o.eventsPerSec} events/s, swapped after ${o.secondsToSwap} s, done after ${o.secondsToDone} s (grace period included)` +
          (o.statusErrors > 0 ? `; ${o.statusErrors} status reads failed (retried)` : ''),
        `  ingest   ${o.ingest.turns} turns meanwhile (${o.ingest.turnsPerSec}/s of ${o.ingest.rate}/s asked), ${o.ingest.failures} failed`,
        `  recall   ${o.recall.calls} calls over ${o.recall.probes} probes, ${o.recall.failures} failures (${o.recall.errors} non-200, ${o.recall.missing} probe missing); ` +
          `p50 ${ms(o.recall.p50)}  p99 ${ms(o.recall.p99)}  max ${ms(o.recall.max)}`,
        `from scratch ${o.fromScratch.events} events, ${o.fromScratch.eventsPerSec} events/s, swapped after ${o.fromScratch.secondsToSwap} s`,
        `equal      ${o.equal} (${o.comparison.users} users, ${o.comparison.memories.left} / ${o.comparison.memories.right} memories, status=all, and a recall each)` +
          (o.equal ? '' : `; ${o.comparison.differenceCount} differences, first: ${o.comparison.differences.join(' | ')}`),
      ]
    : [
        `freshness  p50 ${ms(report.freshnessMs.p50)}  p99 ${ms(report.freshnessMs.p99)}  max ${ms(report.freshnessMs.max)}  at ${report.freshnessMs.rate} turns/s (${report.freshnessMs.samples} probes, ${report.freshnessMs.missed} not recalled within ${FRESHNESS_TIMEOUT_MS / 1000} s)`,
        `recall     p50 ${ms(r.p50)}  p95 ${ms(r.p95)}  p99 ${ms(r.p99)}  (sequential, ${r.samples} queries)`,
        `           p50 ${ms(r.concurrent.p50)}  p95 ${ms(r.concurrent.p95)}  p99 ${ms(r.concurrent.p99)}  (${r.concurrent.clients} concurrent clients)`,
        report.rebuild.eventsPerSec === null
          ? 'rebuild    — (only embedded: a running server is rebuilt offline with `engram rebuild`)'
          : `rebuild    ${report.rebuild.eventsPerSec} events/s (${report.rebuild.events} events in ${report.rebuild.seconds} s)`,
      ];
  return [
    `engram bench (${report.mode}${report.embedder ? `, ${report.embedder}` : ''}): ${report.turns} turns over ${report.users} users → ${report.memories} memories`,
    `ingest     ${report.ingest.turnsPerSec} turns/s (${report.ingest.turns} turns in ${report.ingest.seconds} s, ${report.ingest.turnsPerRequest} per POST, until nothing pending)`,
    ...phases,
    ...storeLines(report.storeRequests),
    ...(report.serverCpu
      ? [
          `server CPU ${report.serverCpu.ingestMsPerTurn} ms a turn ingested, ${report.serverCpu.recallMsPerQuery ?? '—'} ms a recall (every --metrics-url's process, summed)`,
        ]
      : []),
    report.peakRssMb === null
      ? 'peak RSS   — (the server behind --url is another process)'
      : `peak RSS   ${report.peakRssMb} MB (this process: the whole embedded engram; heap peak ${report.process.peakHeapMb} MB, outside the heap ${report.process.peakExternalMb} MB; ` +
        `after ingest ${report.process.peakRssMbAfter.ingest}, freshness ${report.process.peakRssMbAfter.freshness}, recall ${report.process.peakRssMbAfter.recall}, rebuild ${report.process.peakRssMbAfter.rebuild})`,
    `CPU        ${report.process.cpuSeconds} s in ${report.process.wallSeconds} s (${Math.round((100 * report.process.cpuSeconds) / Math.max(report.process.wallSeconds, 0.001))}% of one core)` +
      (report.process.phaseCpuSeconds
        ? `; ingest ${report.process.phaseCpuSeconds.ingest} s (${report.process.ingestTurnsPerCpuSecond} turns per CPU second), ` +
          `recall ${report.process.phaseCpuSeconds.recall} s (${report.process.recallCpuMsPerQuery ?? '—'} ms a question), rebuild ${report.process.phaseCpuSeconds.rebuild} s (${report.process.rebuildEventsPerCpuSecond ?? '—'} events per CPU second)`
        : ''),
    ...(!o && report.freshnessMs.rate > report.ingest.turnsPerSec
      ? [
          `note       freshness was measured at ${report.freshnessMs.rate} turns/s, above the ingest throughput (${report.ingest.turnsPerSec}/s): it includes the growing backlog`,
        ]
      : []),
  ].join('\n');
}
