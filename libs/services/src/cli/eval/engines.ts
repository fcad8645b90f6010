import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { FactStore } from '@engram/ports';
import { startApp } from '../../bootstrap';
import { IngestService } from '../../ingest/ingest.service';
import type { RecallDto, RecallResponse } from '../../recall/recall.dto';
import type { PostTurnsDto } from '../../ingest/turns.dto';
import { RecallService } from '../../recall/recall.service';
import { DEFAULT_TENANT } from '../../http/tenancy';
import { ForgettingService } from '../../admin/forgetting/forgetting.job';
import { PipelineProgress } from '../../pipeline/pipeline-progress';
import type { CliModules } from '../cli-modules';

/** What the eval needs of an engram: the embedded one in-process, or a running one over HTTP. */
export interface EvalEngine {
  ingest(request: PostTurnsDto): Promise<void>;
  /** Events accepted but not yet visible to recall. */
  pending(): Promise<number>;
  recall(body: RecallDto): Promise<RecallResponse>;
  /** The source turn ids of every memory stored for the user, whatever its status (evidence coverage). */
  memorySourceTurnIds(userId: string): Promise<string[]>;
  /**
   * One forgetting sweep, as a deployment runs within the hour of ingest (the dataset is a backfill:
   * what expires after a week of world time expires now). A running engram sweeps on its own schedule.
   */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/** A running engram over HTTP (`--url`). */
export function remoteEngine(url: string, apiKey?: string): EvalEngine {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(new URL(route, url), {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    ingest: async (request) => {
      await call('POST', '/v1/turns', request);
    },
    pending: async () => (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending,
    recall: (body) => call<RecallResponse>('POST', '/v1/recall', body),
    memorySourceTurnIds: async (userId) => {
      const { memories } = await call<{ memories: { sourceTurnIds: string[] }[] }>(
        'GET',
        `/v1/users/${encodeURIComponent(userId)}/memories?status=all`,
      );
      return memories.flatMap((memory) => memory.sourceTurnIds);
    },
    sweep: async () => undefined,
    close: async () => undefined,
  };
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
    const ingest = app.get(IngestService);
    const recall = app.get(RecallService);
    const progress = app.get(PipelineProgress);
    const facts = app.get<FactStore>(FactStore);
    const forgetting = app.get(ForgettingService);
    return {
      ingest: async (request) => {
        await ingest.ingest(DEFAULT_TENANT, request);
      },
      pending: () => progress.pending(),
      recall: (body) => recall.recall(DEFAULT_TENANT, body),
      memorySourceTurnIds: async (userId) =>
        (await facts.list({ tenantId: DEFAULT_TENANT, userId })).flatMap((memory) => memory.sourceTurnIds),
      sweep: async () => {
        await forgetting.run({ wait: true });
      },
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
