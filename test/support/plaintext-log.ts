/**
 * Writes a data directory the way an engram from before crypto-shredding did: the bench workload
 * (`engram bench`'s seeded turns) through every stage, with the event log bound unsealed and
 * unversioned, so every topic holds its payloads in plaintext. For measuring `engram encrypt-log`
 * (docs/benchmarks.md):
 *
 *   node -r ./test/support/ts-register.js test/support/plaintext-log.ts <dataDir> [turns=20000] [users=200]
 *   ENGRAM_DATA_DIR=<dataDir> /usr/bin/time -v node bin/engram.js encrypt-log --json
 */
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { loadConfig } from '@engram/config';
import { EventLog } from '@engram/ports';
import { connectStages, DEFAULT_TENANT, IngestService, PipelineProgress, STORED_EVENT_LOG } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { workloadRequests } from '../../libs/services/src/cli/bench';

async function main(): Promise<void> {
  const [dataDir, turns = '20000', users = '200'] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: plaintext-log.ts <dataDir> [turns] [users]');
  const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
  const moduleRef = await Test.createTestingModule({ imports: [EngramModule.forRoot({ config })] })
    .overrideProvider(EventLog)
    .useFactory({ factory: (stored: EventLog) => stored, inject: [STORED_EVENT_LOG] })
    .compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  connectStages(app, config);
  await app.startAllMicroservices();
  await app.init();
  try {
    const ingest = app.get(IngestService);
    for (const request of workloadRequests({ turns: Number(turns), users: Number(users), seed: 42 })) await ingest.ingest(DEFAULT_TENANT, request);
    const progress = app.get(PipelineProgress);
    while ((await progress.pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    await app.close();
  }
  console.log(JSON.stringify({ dataDir, turns: Number(turns), users: Number(users) }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
