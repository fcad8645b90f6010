import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@engram/config';
import { Embedder, FactStore } from '@engram/ports';
import { startApp } from '../../bootstrap';
import { IngestService } from '../../ingest/ingest.service';
import type { RecallDto, RecallResponse } from '../../recall/recall.dto';
import { RecallService } from '../../recall/recall.service';
import { DEFAULT_TENANT } from '../../http/tenancy';
import type { PostTurnsDto } from '../../ingest/turns.dto';
import { PipelineProgress } from '../../pipeline/pipeline-progress';
import { PROJECTION_NAMES } from '@engram/contracts';
import { Rebuilder } from '../../replay/rebuilder';
import type { CliModules } from '../cli-modules';
import { sleep } from './cli-helpers';
import { FRESHNESS_TIMEOUT_MS } from './options';

/** What bench needs of an engram: the embedded one in-process, or a running one over HTTP. */
export interface BenchEngine {
  readonly mode: 'embedded' | 'http';
  readonly embedder: string | null;
  /** Where its HTTP API answers (--url, or the embedded server when a phase needs HTTP); null when in-process only. */
  readonly url: string | null;
  /** Returns the position token of the accepted turns (for `after`). */
  ingest(request: PostTurnsDto): Promise<string>;
  pending(): Promise<number>;
  recall(body: RecallDto): Promise<RecallResponse>;
  /** Active memories of a user. */
  memories(userId: string): Promise<number>;
  /** Replays the log into fresh projections (embedded only; closes the engine first). */
  rebuild?(onProgress: (done: number, total: number, projection: string) => void): Promise<{ events: number; seconds: number }>;
  close(): Promise<void>;
}

export function httpEngine(url: string, apiKey?: string): BenchEngine {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(new URL(route, url), {
        method,
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      // Backpressure: the server asks producers to slow down; a bench producer obeys.
      if (response.status === 429 && attempt < 100) {
        await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 5)));
        continue;
      }
      if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    }
  };
  return {
    mode: 'http',
    embedder: null,
    url,
    ingest: async (request) => (await call<{ position: string }>('POST', '/v1/turns', request)).position,
    pending: async () => (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending,
    recall: (body) => call<RecallResponse>('POST', '/v1/recall', body),
    memories: async (userId) =>
      (await call<{ memories: unknown[] }>('GET', `/v1/users/${encodeURIComponent(userId)}/memories`)).memories.length,
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
  const ingest = server.get(IngestService);
  const recall = server.get(RecallService);
  const progress = server.get(PipelineProgress);
  const facts = server.get<FactStore>(FactStore);
  let closed = false;
  const closeServer = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  const address = http ? (server.getHttpServer().address() as AddressInfo) : null;
  return {
    mode: 'embedded',
    embedder: server.get<Embedder>(Embedder).modelId,
    url: address ? `http://127.0.0.1:${address.port}` : null,
    ingest: async (request) => (await ingest.ingest(DEFAULT_TENANT, request)).position,
    pending: () => progress.pending(),
    recall: (body) => recall.recall(DEFAULT_TENANT, body),
    memories: async (userId) => (await facts.list({ tenantId: DEFAULT_TENANT, userId, statuses: ['active'] })).length,
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
  engine: Pick<BenchEngine, 'recall'>,
  userId: string,
  marker: string,
  turnId: string,
  position: string,
  posted: number,
  timeoutMs = FRESHNESS_TIMEOUT_MS,
): Promise<number | null> {
  while (performance.now() - posted < timeoutMs) {
    // Answers once the read side has reached `position` (or after ENGRAM_AFTER_TIMEOUT_MS): then look.
    const response = await engine.recall({ userId, query: marker, k: 5, after: position } as RecallDto);
    if ([...response.facts, ...response.memories].some((m) => m.sourceTurnIds.includes(turnId))) return performance.now() - posted;
    await sleep(20);
  }
  return null;
}
