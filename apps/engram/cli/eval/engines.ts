import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { startApp } from '@engram/services/bootstrap';
import type { CliModules } from '../cli-modules';
import type { EngramClient } from '../client/engram-client';
import { httpEngramClient } from '../client/http-engram-client';
import { inProcessEngramClient } from '../client/in-process-engram-client';

/** The engram an eval runs on: the embedded one in-process, or a running one over HTTP (`--url`), and how to let it go. */
export interface EvalEngine {
  readonly engram: EngramClient;
  close(): Promise<void>;
}

/** A running engram over HTTP (`--url`): its data is added to, and it is left running. */
export function remoteEngine(url: string, apiKey?: string): EvalEngine {
  return { engram: httpEngramClient({ url, apiKey }), close: async () => undefined };
}

/** The embedded engram in a fresh temporary data directory, removed on close. */
export function embeddedEngine(modules: CliModules, env: Record<string, string | undefined> = process.env): () => Promise<EvalEngine> {
  return async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-'));
    let app: INestApplication;
    try {
      const config = loadConfig({ ...env, LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
      app = await startApp(modules.server(config), { http: false, stages: true });
    } catch (error) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
    return {
      engram: inProcessEngramClient(app),
      close: async () => {
        try {
          await app.close();
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  };
}
