/**
 * The `EngramClient` port in this process: the Nest services of an app started here (the embedded
 * server on the data directory, or eval's and bench's throwaway one), called for the default tenant
 * as the HTTP controllers call them. Services are looked up per call, so a maintenance app (no
 * stages, no HTTP side) serves the calls it has the services for.
 */
import { HttpException, type INestApplication } from '@nestjs/common';
import { FactStore } from '@engram/ports';
import { ForgettingService } from '@engram/services/forgetting/forgetting.job';
import { DEFAULT_TENANT } from '@engram/services/http/tenancy';
import { IngestService } from '@engram/services/ingest/ingest.service';
import { PipelineProgress } from '@engram/services/pipeline/pipeline-progress';
import { RecallService } from '@engram/services/recall/recall.service';
import { ExportService } from '@engram/services/users/export.service';
import { MemoryControlService } from '@engram/services/users/memory-control.service';
import type { EngramClient } from './engram-client';

export function inProcessEngramClient(app: INestApplication): EngramClient {
  const memoryControl = () => app.get(MemoryControlService);
  return {
    kind: 'in-process',
    ingest: (request) => app.get(IngestService).ingest(DEFAULT_TENANT, request),
    pending: () => app.get(PipelineProgress).pending(),
    pipelineStatus: async () => {
      const progress = app.get(PipelineProgress);
      const [stages, letters] = await Promise.all([progress.stages(), progress.deadLetters()]);
      // What is down only a running server knows (its stages met it): this process has called nothing.
      return { pending: stages.reduce((s, x) => s + x.lag, 0), deadLetters: letters.reduce((s, x) => s + x.count, 0), stages };
    },
    recall: (body) => app.get(RecallService).recall(DEFAULT_TENANT, body),
    memories: async (userId, status) => {
      const memories = await app
        .get<FactStore>(FactStore)
        .list({ tenantId: DEFAULT_TENANT, userId, ...(status === 'all' ? {} : { statuses: ['active'] }) });
      return memories.map(({ appliedItemIds: _bookkeeping, ...memory }) => memory);
    },
    export: (userId) => app.get(ExportService).export(DEFAULT_TENANT, userId),
    import: (userId, bundle) => app.get(ExportService).import(DEFAULT_TENANT, userId, bundle),
    runForgetting: (userIds) => app.get(ForgettingService).run({ tenantId: DEFAULT_TENANT, userIds, wait: true }),
    retract: (userId, memoryId, reason) => asCommandError(memoryControl().retract(DEFAULT_TENANT, userId, memoryId, reason)),
    revert: (userId, memoryId, version) => asCommandError(memoryControl().revert(DEFAULT_TENANT, userId, memoryId, version)),
    saveProfile: (userId, attributes) => asCommandError(memoryControl().saveProfile(DEFAULT_TENANT, userId, attributes)),
    startRebuilds: () => Promise.reject(new Error('an online rebuild needs a running engram (--url)')),
    rebuilds: () => Promise.reject(new Error('an online rebuild needs a running engram (--url)')),
  };
}

/** An HTTP error of a per-memory command (404 unknown memory…) becomes the command's error, naming the fields. */
async function asCommandError<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    if (!(error instanceof HttpException)) throw error;
    const body = error.getResponse() as { message?: string[]; fields?: string[] };
    throw new Error(`${error.getStatus()}: ${(body.message ?? [error.message]).join('; ')} (${(body.fields ?? []).join(', ')})`, {
      cause: error,
    });
  }
}
