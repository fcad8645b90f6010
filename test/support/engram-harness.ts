import type { INestApplication } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { EngramModule } from '../../apps/engram/engram.module';
import { loadConfig } from '@engram/config';
import type { Clock } from '@engram/ports';
import { PROJECTION_NAMES, Rebuilder, startApp } from '@engram/services';

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

export interface EngramHarness {
  readonly app: INestApplication;
  readonly dataDir: string;
  readonly http: () => ReturnType<typeof request>;
  /** Stops the process-equivalent (stages, stores) without deleting data. */
  stop(): Promise<void>;
  /** Stops and removes the data directory. */
  destroy(): Promise<void>;
}

/**
 * The real embedded server (every stage, SQLite under a temporary data
 * directory), served in-process so supertest can talk to it.
 */
export async function startEngram(
  options: { env?: Record<string, string>; dataDir?: string; clock?: Clock } = {},
): Promise<EngramHarness> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'engram-e2e-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_AFTER_TIMEOUT_MS: '10000', ...options.env, ENGRAM_DATA_DIR: dataDir });
  const app = await startApp(EngramModule.forRoot({ config, clock: options.clock }), { http: false, stages: true });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
  };
  return {
    app,
    dataDir,
    http: () => request(app.getHttpServer()),
    stop,
    destroy: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `engram rebuild` as an operator runs it: offline, on the data directory of
 * a stopped server. Returns how many events were replayed.
 */
export async function rebuildOffline(dataDir: string): Promise<number> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
  const app = await startApp(EngramModule.forMaintenance({ config }), { http: false, stages: false });
  try {
    return (await app.get(Rebuilder).rebuild(PROJECTION_NAMES)).events;
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
