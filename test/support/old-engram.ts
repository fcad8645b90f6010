import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { EngramConfig } from '@engram/config';
import { EventLog } from '@engram/ports';
import { configureHttp, connectStages, PipelineProgress, STORED_EVENT_LOG } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';

/**
 * engram as it was before crypto-shredding: every stage (and HTTP, unless `http: false`) with the
 * event log bound as it is stored — no sealing, no topic versions — so every topic holds its
 * payloads in plaintext. What `engram encrypt-log` migrates from.
 */
export async function startOldEngram(config: EngramConfig, { http = true }: { http?: boolean } = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [EngramModule.forRoot({ config })] })
    .overrideProvider(EventLog)
    .useFactory({ factory: (stored: EventLog) => stored, inject: [STORED_EVENT_LOG] })
    .compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  if (http) configureHttp(app);
  connectStages(app);
  await app.startAllMicroservices();
  await app.init();
  return app;
}

/** Resolves once the app's pipeline has nothing pending. */
export async function drained(app: INestApplication, pollMs = 10): Promise<void> {
  const progress = app.get(PipelineProgress);
  while ((await progress.pending()) > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
}
