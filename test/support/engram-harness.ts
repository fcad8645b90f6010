import type { INestApplication } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { EngramModule } from '../../apps/engram/engram.module';
import { loadConfig } from '@engram/config';
import type { Clock } from '@engram/ports';
import { PROJECTION_NAMES, ProjectionName, Rebuilder, startApp } from '@engram/services';
import { distributedEnv, Deployment, destroyDeployment, dumpDeployment, loadDeployment } from './distributed-deployment';

/** A settable clock for tests that move time. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-11-30T09:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(instant: string | Date): void {
    this.current = new Date(instant);
  }
  advanceDays(days: number): void {
    this.current = new Date(this.current.getTime() + days * 86_400_000);
  }
}

export type EngramMode = 'embedded' | 'distributed';

let defaultMode: EngramMode = process.env.ENGRAM_TEST_MODE === 'distributed' ? 'distributed' : 'embedded';

/**
 * The mode `startEngram` and `rebuildOffline` use unless told otherwise:
 * `ENGRAM_TEST_MODE` (default embedded), or what a spec file sets here. Jest
 * gives each spec file its own module registry, so this is per file.
 */
export function useEngramMode(mode: EngramMode | undefined): void {
  if (mode) defaultMode = mode;
}

export function engramMode(): EngramMode {
  return defaultMode;
}

export interface EngramHarness {
  readonly app: INestApplication;
  readonly mode: EngramMode;
  /**
   * Identifies the deployment: the SQLite data directory (embedded), or a
   * directory holding the names of this deployment's Kafka topics, Mongo
   * database and Elasticsearch indices (distributed). Pass it back to
   * `startEngram` to restart on the same data.
   */
  readonly dataDir: string;
  readonly http: () => ReturnType<typeof request>;
  /** Stops the process-equivalent (stages, stores) without deleting data. */
  stop(): Promise<void>;
  /** Stops and removes the data (directory; topics, groups, database and indices). */
  destroy(): Promise<void>;
  /** Everything stored, as one string, for "no raw PII stored" checks (call after stop). */
  storedData(): Promise<string>;
}

/**
 * The real all-in-one server (every stage), served in-process so supertest can
 * talk to it: embedded on SQLite under a temporary data directory, or
 * distributed on Kafka, MongoDB and Elasticsearch under names unique to this
 * harness (`npm run test:infra` starts the servers).
 */
export async function startEngram(
  options: { env?: Record<string, string>; dataDir?: string; clock?: Clock; mode?: EngramMode } = {},
): Promise<EngramHarness> {
  const mode = options.mode ?? defaultMode;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `engram-${mode === 'embedded' ? 'e2e' : 'infra'}-`));
  const deployment = mode === 'distributed' ? loadDeployment(dataDir) : undefined;
  const config = loadConfig({
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
    ENGRAM_AFTER_TIMEOUT_MS: mode === 'embedded' ? '10000' : '30000',
    ...(deployment ? distributedEnv(deployment) : {}),
    ...options.env,
    ENGRAM_DATA_DIR: dataDir,
  });
  const app = await startApp(EngramModule.forRoot({ config, clock: options.clock }), { http: false, stages: true });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
  };
  return {
    app,
    mode,
    dataDir,
    http: () => request(app.getHttpServer()),
    stop,
    destroy: async () => {
      await stop();
      if (deployment) await destroyDeployment(deployment);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    storedData: async () => (deployment ? dumpDeployment(deployment) : readAllFiles(dataDir)),
  };
}

/**
 * `engram rebuild` as an operator runs it: offline, on the data of a stopped
 * server (its data directory, or its topics and stores). Returns how many
 * events were replayed.
 */
export async function rebuildOffline(
  dataDir: string,
  options: { mode?: EngramMode; projections?: readonly ProjectionName[] } = {},
): Promise<number> {
  const mode = options.mode ?? defaultMode;
  const deployment: Deployment | undefined = mode === 'distributed' ? loadDeployment(dataDir) : undefined;
  const config = loadConfig({
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
    ...(deployment ? distributedEnv(deployment) : {}),
    ENGRAM_DATA_DIR: dataDir,
  });
  const app = await startApp(EngramModule.forMaintenance({ config }), { http: false, stages: false });
  try {
    return (await app.get(Rebuilder).rebuild(options.projections ?? PROJECTION_NAMES)).events;
  } finally {
    await app.close();
  }
}

export interface TurnInput {
  turnId: string;
  text: string;
  role?: 'user' | 'assistant' | 'system' | 'tool';
  occurredAt?: string;
  speaker?: string;
}

export function turnsBody(userId: string, sessionId: string, turns: TurnInput[]) {
  return {
    userId,
    sessionId,
    turns: turns.map((t) => ({ role: 'user', occurredAt: '2026-11-30T08:00:00Z', ...t })),
  };
}

/** Every file under a directory, as one string: for "no raw PII on disk" checks. */
export function readAllFiles(dir: string): string {
  let all = '';
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    all += entry.isDirectory() ? readAllFiles(full) : fs.readFileSync(full).toString('latin1') + fs.readFileSync(full).toString('utf8');
  }
  return all;
}
