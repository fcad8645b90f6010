/**
 * `engram bench`: how fast is engram on a synthetic bilingual workload of a given size?
 *
 * Phases, in order, on one engram (embedded in a fresh temporary data directory, or --url):
 *   1. ingest     every turn of the workload, as fast as it is accepted; turns/s from the first POST
 *                 until nothing is pending on the read path;
 *   2. freshness  more turns at a steady rate; for probe turns (each carrying a unique word), the
 *                 time from the POST until recall returns a memory sourced from that turn;
 *   3. recall     latency at that size, sequential, then with `concurrency` overlapping clients;
 *   4. rebuild    (embedded only) the server closes, a maintenance app on the same data directory
 *                 replays the log into fresh projections: events/s.
 * Peak RSS is this process's (the whole embedded engram); a server behind --url is not measured.
 *
 * With --online-rebuild, phases 2–4 give way to a rebuild under ingest, through HTTP only (the
 * embedded server then listens on a free loopback port): every projection rebuilt online while
 * turns keep coming and recall keeps answering, then the read side compared with a from-scratch
 * online rebuild of the same log (`measureOnlineRebuild`).
 *
 * One file per part: workload.ts (the seeded bilingual turns and questions), statistics.ts,
 * engines.ts (embedded or over HTTP), runner.ts (the phases), online-rebuild.ts and snapshots.ts
 * (--online-rebuild), report.ts (the text report), command.ts (the CLI command).
 */
export {
  probeStatement,
  seededRandom,
  streamSeed,
  userStatements,
  workloadQueries,
  workloadRequests,
  type WorkloadOptions,
} from './workload';
export { summariseLatencies } from './statistics';
export { compareSnapshots, snapshotMemories, snapshotRecall, type UserSnapshot } from './snapshots';
export { registerBenchCommand } from './command';
export { addCounts, parseProcessCpuSeconds, parseStoreRequests, storeRequestRates } from './store-requests';
