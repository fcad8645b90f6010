import { Command } from 'commander';
import type { CliModules } from '../cli-modules';
import { embeddedEngine } from './engines';
import { positiveInt } from './cli-helpers';
import { runBench } from './runner';

/** Adds `engram bench [--turns N] [--users U] [--json] [--url <url>] …`. */
export function registerBenchCommand(program: Command, modules: CliModules): Command {
  return program
    .command('bench')
    .description('measure ingest throughput, freshness, recall latency, rebuild throughput and peak RSS on a synthetic bilingual workload')
    .option('--turns <n>', 'turns to ingest (about one memory each)', positiveInt('turns'), 100_000)
    .option('--users <n>', 'users the turns are spread over', positiveInt('users'), 1_000)
    .option('--seed <n>', 'workload seed', positiveInt('seed'), 42)
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--url <url>', 'benchmark a running engram (its data is added to; no rebuild, no RSS)')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .option(
      '--metrics-url <url>',
      "with --url: a process's /metrics whose store requests count (repeat for each process of a distributed deployment; default <url>/metrics)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--metrics-key <key>', 'with --url: the key /metrics asks for (or ENGRAM_METRICS_KEY, or the admin key)')
    .option('--turns-per-request <n>', 'turns per POST while ingesting', positiveInt('turns-per-request', 500), 10)
    .option('--freshness-rate <n>', 'turns/s posted while measuring freshness', positiveInt('freshness-rate', 100_000), 200)
    .option('--freshness-samples <n>', 'probe turns timed for freshness', positiveInt('freshness-samples'), 100)
    .option('--queries <n>', 'recall questions, sequential and again concurrent', positiveInt('queries'), 1_000)
    .option('--concurrency <n>', 'concurrent recall clients', positiveInt('concurrency', 1000), 8)
    .option(
      '--online-rebuild',
      'instead of freshness/recall/rebuild: rebuild every projection online while ingest and recall go on, then check it equals a from-scratch rebuild',
    )
    .option('--rebuild-ingest-rate <n>', 'turns/s posted during the online rebuild', positiveInt('rebuild-ingest-rate', 100_000), 50)
    .option('--admin-key <key>', 'admin key for the online rebuild (or ENGRAM_ADMIN_KEY)')
    .action(
      async (options: {
        turns: number;
        users: number;
        seed: number;
        json?: boolean;
        url?: string;
        apiKey?: string;
        metricsUrl?: string[];
        metricsKey?: string;
        turnsPerRequest: number;
        freshnessRate: number;
        freshnessSamples: number;
        queries: number;
        concurrency: number;
        onlineRebuild?: boolean;
        rebuildIngestRate: number;
        adminKey?: string;
      }) => {
        const { metricsUrl, ...rest } = options;
        await runBench(
          { ...rest, metricsUrls: metricsUrl, json: options.json === true, onlineRebuild: options.onlineRebuild === true },
          (http) => embeddedEngine(modules, process.env, http),
        );
      },
    );
}
