import { Global, INestApplication, Module } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { deterministicId } from '@engram/contracts';
import { maskPii } from '@engram/domain';
import { LOG_DESTINATION, PipelineProgress, startApp } from '@engram/services';
import { eventually } from '@engram/testing';
import { EngramModule } from '../../apps/engram/engram.module';
import { turnsBody } from '../support/engram-harness';

/** The embedded server with its JSON log lines captured (instead of stdout). */
async function startWithLogs(env: Record<string, string>) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const destination = {
    write(line: string) {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  };
  @Global()
  @Module({ providers: [{ provide: LOG_DESTINATION, useValue: destination }], exports: [LOG_DESTINATION] })
  class CaptureLogs {}

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-logs-'));
  const config = loadConfig({ ENGRAM_DATA_DIR: dataDir, ENGRAM_FORGETTING_INTERVAL_MS: '0', ...env });
  const app: INestApplication = await startApp(
    { module: class LoggedEngram {}, imports: [CaptureLogs, EngramModule.forRoot({ config })] },
    { http: false, stages: true },
  );
  const http = () => request(app.getHttpServer());
  return {
    app,
    http,
    lines,
    /** Every line, as written. */
    text: () => raw.join(''),
    settle: () => eventually(async () => (await app.get(PipelineProgress).pending()) === 0, 'the pipeline to settle', 20_000),
    close: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Started = Awaited<ReturnType<typeof startWithLogs>>;

const PHONE = '13812345678';
const TEXT = `I prefer VS Code for TypeScript work, call me on ${PHONE}`;

describe('correlation ids in the logs (embedded)', () => {
  let engram: Started | undefined;
  afterEach(async () => {
    await engram?.close();
    engram = undefined;
  });

  it('at LOG_LEVEL=debug one turn’s correlation id appears on a line of every stage, and its text on none', async () => {
    engram = await startWithLogs({ LOG_LEVEL: 'debug' });
    await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('ada', 's1', [{ turnId: 't1', text: TEXT }]))
      .expect(202);
    await engram.settle();
    const correlationId = deterministicId('turn', 'default', 'ada', 't1');

    const stages = new Set(
      engram.lines
        .filter((line) => Array.isArray(line.correlationIds) && (line.correlationIds as string[]).includes(correlationId))
        .map((line) => line.stage),
    );
    expect([...stages].sort()).toEqual(['extractor', 'filter', 'indexer', 'ingest', 'resolver', 'sessions']);
    for (const line of engram.lines.filter((l) => l.correlationIds !== undefined)) expect(line.level).toBe(20); // pino's debug

    const all = engram.text();
    expect(all).not.toContain(PHONE);
    expect(all).not.toContain('TypeScript work');
    expect(all).not.toContain('VS Code');
  });

  it('at the default level (info) no per-batch line is written', async () => {
    engram = await startWithLogs({ LOG_LEVEL: 'info' });
    await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('ada', 's1', [{ turnId: 't1', text: TEXT }]))
      .expect(202);
    await engram.settle();
    // The request itself is logged (method, url, status) …
    expect(engram.lines.some((line) => (line.req as { url?: string } | undefined)?.url === '/v1/turns')).toBe(true);
    // … but no per-batch line, and no correlation id.
    expect(engram.lines.filter((line) => line.correlationIds !== undefined || line.msg === 'stage batch')).toEqual([]);
  });
});

describe('recall audit log (embedded)', () => {
  let engram: Started | undefined;
  afterEach(async () => {
    await engram?.close();
    engram = undefined;
  });

  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  const audits = (lines: Record<string, unknown>[]) => lines.filter((line) => line.audit === 'recall');

  it('writes one line per recall for an audited tenant (masked query, ids in order, score components) and none for another', async () => {
    engram = await startWithLogs({ LOG_LEVEL: 'info', ENGRAM_API_KEYS: 'key-a=acme,key-b=globex', ENGRAM_RECALL_AUDIT_TENANTS: 'acme' });
    const turns = [
      { turnId: 't1', text: 'my name is Ada and I work at Initech' },
      { turnId: 't2', text: 'I prefer VS Code for TypeScript work' },
      { turnId: 't3', text: 'I prefer Vim for Rust work' },
    ];
    let position = '';
    for (const key of ['key-a', 'key-b']) {
      ({
        body: { position },
      } = await engram
        .http()
        .post('/v1/turns')
        .set(as(key))
        .send(turnsBody('ada', 's1', turns))
        .expect(202));
    }
    const query = `which editor for TypeScript and Rust? call ${PHONE}`;
    const recall = (key: string) =>
      engram!.http().post('/v1/recall').set(as(key)).send({ userId: 'ada', query, sessionId: 's1', after: position }).expect(200);

    const audited = await recall('key-a');
    const [line, ...more] = audits(engram.lines);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ audit: 'recall', tenantId: 'acme', userId: 'ada', sessionId: 's1', level: 30 });
    expect(line.query).toBe(maskPii(query).text);
    expect(line.query).not.toContain(PHONE);
    expect(line.query).toContain('which editor for TypeScript and Rust? call ');
    expect(line.facts).toEqual(audited.body.facts.map((f: { id: string }) => f.id));
    const memories = line.memories as { id: string; score: number; components: Record<string, number> }[];
    expect(memories.map((m) => m.id)).toEqual(audited.body.memories.map((m: { id: string }) => m.id));
    expect(memories.length).toBeGreaterThan(0);
    for (const [i, m] of memories.entries()) {
      expect(m.score).toBeCloseTo(audited.body.memories[i].score, 10);
      expect(Object.keys(m.components)).toEqual(expect.arrayContaining(['relevance', 'decay', 'importance', 'confidence']));
    }

    await recall('key-b');
    expect(audits(engram.lines)).toHaveLength(1);
    await recall('key-a');
    expect(audits(engram.lines)).toHaveLength(2);

    // The phone number reached no line at all (requests log method, url and status only).
    expect(engram.text()).not.toContain(PHONE);
  });

  it('`*` audits every tenant; unset audits none', async () => {
    engram = await startWithLogs({ LOG_LEVEL: 'info', ENGRAM_API_KEYS: 'key-a=acme,key-b=globex', ENGRAM_RECALL_AUDIT_TENANTS: '*' });
    for (const key of ['key-a', 'key-b'])
      await engram.http().post('/v1/recall').set(as(key)).send({ userId: 'ada', query: 'anything' }).expect(200);
    expect(audits(engram.lines).map((l) => l.tenantId)).toEqual(['acme', 'globex']);
    await engram.close();

    engram = await startWithLogs({ LOG_LEVEL: 'info' });
    await engram.http().post('/v1/recall').send({ userId: 'ada', query: 'anything' }).expect(200);
    expect(audits(engram.lines)).toEqual([]);
  });

  it('rejects a malformed ENGRAM_RECALL_AUDIT_TENANTS at start-up, naming the variable', () => {
    for (const value of ['acme,,globex', 'acme *', 'a=b']) {
      expect(() => loadConfig({ ENGRAM_RECALL_AUDIT_TENANTS: value })).toThrow(/ENGRAM_RECALL_AUDIT_TENANTS/);
    }
    expect(() => loadConfig({ ENGRAM_RECALL_AUDIT_TENANTS: ' acme , globex ' })).not.toThrow();
  });
});
