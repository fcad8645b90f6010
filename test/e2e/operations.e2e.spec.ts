import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

const turns = (n: number) => Array.from({ length: n }, (_, i) => ({ turnId: `t${i}`, text: `I prefer tea number ${i}` }));

describe('operations (embedded)', () => {
  let engram: EngramHarness;
  afterEach(async () => engram?.destroy());

  it('serves Prometheus metrics named engram_…, with consumer lag and stage counters', async () => {
    engram = await startEngram();
    const { body } = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('u1', 's1', turns(3)))
      .expect(202);
    await engram.http().post('/v1/recall').send({ userId: 'u1', query: 'tea', after: body.position }).expect(200);
    const metrics = await engram.http().get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.text).toContain('engram_consumer_lag{topic="memory.turns.v1",group="filter",partition="0"} 0');
    expect(metrics.text).toMatch(/engram_events_consumed_total\{stage="filter",topic="memory.turns.v1"\} 3/);
    expect(metrics.text).toMatch(/engram_events_published_total\{topic="memory.turns.v1"\} 3/);
    expect(metrics.text).toContain('engram_recall_duration_seconds_count 1');
    expect(metrics.text).toContain('engram_stage_batch_duration_seconds_bucket');
    // Projection versions: version 1 serves and is the only one stored; no rebuild has run.
    for (const projection of ['facts', 'sessions', 'search']) {
      expect(metrics.text).toContain(`engram_projection_active_version{projection="${projection}"} 1`);
      expect(metrics.text).toContain(`engram_projection_stored_versions{projection="${projection}"} 1`);
    }
    expect(metrics.text).not.toMatch(/^engram_rebuild_phase\{/m);
  });

  it('reports consumer lag per partition while a stage is behind', async () => {
    // The HTTP side alone, with no stage running: every accepted turn is the filter's lag.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-lag-metrics-'));
    const app = await startApp(EngramModule.forRoot({ config: loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir }) }), {
      http: false,
      stages: false,
    });
    try {
      await request(app.getHttpServer())
        .post('/v1/turns')
        .send(turnsBody('u1', 's1', turns(4)))
        .expect(202);
      const metrics = await request(app.getHttpServer()).get('/metrics').expect(200);
      expect(metrics.text).toContain('engram_consumer_lag{topic="memory.turns.v1",group="filter",partition="0"} 4');
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers 429 with Retry-After when a tenant exceeds its rate, storing nothing of that request', async () => {
    engram = await startEngram({ env: { ENGRAM_TENANT_RATE_LIMIT: '1' } });
    await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('u1', 's1', turns(8)))
      .expect(202);
    const refused = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('u2', 's1', turns(5)))
      .expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const status = await engram.http().get('/v1/pipeline/status').expect(200);
    expect(status.body.ingested).toBe(8);
  });

  it('answers 429 while the read side lags more than ENGRAM_MAX_PENDING events', async () => {
    // The HTTP side alone, with no stage running: everything ingested stays pending.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-lag-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir, ENGRAM_MAX_PENDING: '5' });
    const app = await startApp(EngramModule.forRoot({ config }), { http: false, stages: false });
    try {
      const http = () => request(app.getHttpServer());
      await http()
        .post('/v1/turns')
        .send(turnsBody('u1', 's1', turns(6)))
        .expect(202);
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the pending cache
      const refused = await http()
        .post('/v1/turns')
        .send(turnsBody('u1', 's1', [{ turnId: 'late', text: 'I prefer coffee' }]))
        .expect(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.message[0]).toContain('behind');
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
