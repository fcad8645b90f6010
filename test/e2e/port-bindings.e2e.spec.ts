import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '@engram/config';
import { startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * Per-port bindings (ENGRAM_EVENT_LOG, ENGRAM_FACT_STORE, ENGRAM_SEARCH) over ENGRAM_MODE's preset.
 * Every non-SQLite backend needs a server, so the mixed binding started here is the distributed
 * preset with every port set back to SQLite (the variables win over the preset, and no server or
 * master key is asked for); the backends that need servers are checked through their start-up
 * errors: unset addresses stop loadConfig, an unreachable Elasticsearch beside SQLite stops the start,
 * each naming its variable. The distributed bindings themselves run in `npm run test:infra`.
 */
describe('port bindings', () => {
  describe('given ENGRAM_MODE=distributed with every port bound to SQLite', () => {
    let engram: EngramHarness;
    beforeAll(async () => {
      engram = await startEngram({
        mode: 'embedded',
        clock: new TestClock(new Date('2026-11-30T09:00:00Z')),
        env: { ENGRAM_MODE: 'distributed', ENGRAM_EVENT_LOG: 'sqlite', ENGRAM_FACT_STORE: 'sqlite', ENGRAM_SEARCH: 'sqlite' },
      });
    });
    afterAll(async () => engram?.destroy());

    it('starts without servers, reports the preset, and remembers and recalls over SQLite', async () => {
      expect((await engram.http().get('/health').expect(200)).body).toEqual({ status: 'ok', mode: 'distributed' });
      const turns = [{ turnId: 't1', text: 'I live in Lisbon and I prefer green tea.', occurredAt: '2026-11-30T08:00:00Z' }];
      const accepted = await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody('ana', 's1', turns))
        .expect(202);
      const recalled = await engram
        .http()
        .post('/v1/recall')
        .send({ userId: 'ana', query: 'where does she live?', after: accepted.body.position })
        .expect(200);
      expect(recalled.body.consistent).toBe(true);
      expect(JSON.stringify(recalled.body)).toMatch(/Lisbon/);
      // The data lives in the data directory's SQLite file, with the master key generated beside it.
      expect(fs.existsSync(path.join(engram.dataDir, 'engram.db'))).toBe(true);
      expect(fs.existsSync(path.join(engram.dataDir, 'master.key'))).toBe(true);
    });
  });

  it('given a backend without its address, then loadConfig stops naming the address and the variable that chose the backend', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ LOG_LEVEL: 'silent', ...env });
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ ENGRAM_EVENT_LOG: 'kafka' })).toEqual(['KAFKA_BROKERS: required when ENGRAM_EVENT_LOG=kafka']);
    expect(problems({ ENGRAM_SEARCH: 'elasticsearch' })).toEqual(['ELASTICSEARCH_URL: required when ENGRAM_SEARCH=elasticsearch']);
    expect(problems({ ENGRAM_FACT_STORE: 'mongodb' })).toEqual([
      'MONGODB_URI: required when ENGRAM_FACT_STORE=mongodb',
      'ENGRAM_MASTER_KEY: required when ENGRAM_FACT_STORE=mongodb (32 bytes, as 64 hex digits or base64)',
    ]);
  });

  it('given SQLite beside an Elasticsearch that does not answer, then the start fails naming ELASTICSEARCH_URL', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-e2e-bindings-'));
    try {
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        ENGRAM_DATA_DIR: dataDir,
        ENGRAM_SEARCH: 'elasticsearch',
        ELASTICSEARCH_URL: 'http://127.0.0.1:9',
      });
      await expect(startApp(EngramModule.forRoot({ config }), { http: false, stages: false })).rejects.toThrow(
        /Elasticsearch at ELASTICSEARCH_URL=http:\/\/127\.0\.0\.1:9/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
