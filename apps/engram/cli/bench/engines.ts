import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@engram/config';
import { Embedder } from '@engram/ports';
import { startApp } from '@engram/services/bootstrap';
import type { RecallDto } from '@engram/services/recall/recall.dto';
import { PROJECTION_NAMES } from '@engram/contracts';
import { Rebuilder } from '@engram/services/replay/rebuilder';
import type { CliModules } from '../cli-modules';
import type { EngramClient } from '../client/engram-client';
import { httpEngramClient } from '../client/http-engram-client';
import { inProcessEngramClient } from '../client/in-process-engram-client';
import { EngramMetrics } from '@engram/services/observability/metrics';
import { sleep } from './cli-helpers';
import { FRESHNESS_TIMEOUT_MS } from './options';
import { metricsReader, parseStoreRequests, type ServerCounters } from './store-requests';

/** The engram a bench runs on: the embedded one in-process, or a running one over HTTP, and what only the embedded one has. */
export interface BenchEngine {
  readonly mode: 'embedded' | 'http';
  readonly engram: EngramClient;
  readonly embedder: string | null;
  /** Where its HTTP API answers (--url, or the embedded server when a phase needs HTTP); null when in-process only. */
  readonly url: string | null;
  /** Replays the log into fresh projections (embedded only; closes the engine first). */
  rebuild?(onProgress: (done: number, total: number, projection: string) => void): Promise<{ events: number; seconds: number }>;
  /** `engram_store_requests_total` now, and the CPU used so far, summed over the engram's processes (the phases' cost is the difference). */
  counters(): Promise<ServerCounters>;
  close(): Promise<void>;
}

/**
 * A running engram (`--url`); like any producer, the bench backs off when it answers 429. Its store
 * requests are read from `metricsUrls` (every process of a distributed deployment), by default the
 * `/metrics` of `url`.
 */
export function httpEngine(url: string, apiKey?: string, metrics: { urls?: readonly string[]; key?: string } = {}): BenchEngine {
  const urls = metrics.urls && metrics.urls.length > 0 ? metrics.urls : [new URL('/metrics', url).toString()];
  return {
    mode: 'http',
    engram: httpEngramClient({ url, apiKey, obeyBackpressure: true }),
    embedder: null,
    url,
    counters: metricsReader(urls, metrics.key),
    close: async () => undefined,
  };
}

/** The embedded engram in this process; with `http`, its API also listens on a free loopback port (phases that go through HTTP). */
export async function embeddedEngine(modules: CliModules, env: Record<string, string | undefined>, http = false): Promise<BenchEngine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir, ...(http ? { PORT: '0', HOST: '127.0.0.1' } : {}) });
  let server: INestApplication;
  try {
    server = await startApp(modules.server(config), { http, stages: true });
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  let closed = false;
  const closeServer = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  const address = http ? (server.getHttpServer().address() as AddressInfo) : null;
  return {
    mode: 'embedded',
    engram: inProcessEngramClient(server),
    embedder: server.get<Embedder>(Embedder).modelId,
    url: address ? `http://127.0.0.1:${address.port}` : null,
    // In this process (ENGRAM_MODE=distributed counts MongoDB, Elasticsearch and Kafka; SQLite is not counted).
    // Its CPU is this process's, which the bench measures itself.
    counters: async () => ({
      requests: closed
        ? {}
        : parseStoreRequests(await server.get(EngramMetrics).registry.getSingleMetricAsString('engram_store_requests_total')),
      cpuSeconds: null,
    }),
    rebuild: async (onProgress) => {
      await closeServer();
      const maintenance = await startApp(modules.rebuild(config), { http: false, stages: false });
      try {
        const started = performance.now();
        const { events } = await maintenance.get(Rebuilder).rebuild(PROJECTION_NAMES, (p) => onProgress(p.done, p.total, p.projection));
        return { events, seconds: (performance.now() - started) / 1000 };
      } finally {
        await maintenance.close();
      }
    },
    close: async () => {
      try {
        await closeServer();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export async function waitUntilRecalled(
  engram: Pick<EngramClient, 'recall'>,
  userId: string,
  marker: string,
  turnId: string,
  position: string,
  posted: number,
  timeoutMs = FRESHNESS_TIMEOUT_MS,
): Promise<number | null> {
  while (performance.now() - posted < timeoutMs) {
    // Answers once the read side has reached `position` (or after ENGRAM_AFTER_TIMEOUT_MS): then look.
    const response = await engram.recall({ userId, query: marker, k: 5, after: position } as RecallDto);
    if ([...response.facts, ...response.memories].some((m) => m.sourceTurnIds.includes(turnId))) return performance.now() - posted;
    await sleep(20);
  }
  return null;
}
