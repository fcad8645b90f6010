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
import { loadConfig } from '@engram/config';
import { DEFAULT_TENANT, IngestService } from '@engram/services';
import { workloadRequests } from '../../apps/engram/cli/bench';
import { drained, startOldEngram } from './old-engram';

async function main(): Promise<void> {
  const [dataDir, turns = '20000', users = '200'] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: plaintext-log.ts <dataDir> [turns] [users]');
  const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
  const app = await startOldEngram(config, { http: false });
  try {
    const ingest = app.get(IngestService);
    for (const request of workloadRequests({ turns: Number(turns), users: Number(users), seed: 42 }))
      await ingest.ingest(DEFAULT_TENANT, request);
    await drained(app, 200);
  } finally {
    await app.close();
  }
  console.log(JSON.stringify({ dataDir, turns: Number(turns), users: Number(users) }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
