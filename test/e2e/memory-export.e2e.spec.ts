import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '@engram/config';
import { buildCli } from '../../apps/engram/cli/engram-cli';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, readAllFiles, startEngram, turnsBody } from '../support/engram-harness';

const PHONE = '13812345678';
const CARD = '4111111111111111';
const INTL_PHONE = '+1 415 555 2671';

/** Export and import (issue 11): a masked, versioned bundle that recalls the same elsewhere. */
describe('export and import (HTTP, two instances)', () => {
  let source: EngramHarness;
  let target: EngramHarness;

  beforeEach(async () => {
    source = await startEngram();
    target = await startEngram();
  });
  afterEach(async () => {
    await source.destroy();
    await target.destroy();
  });

  async function recall(engram: EngramHarness, userId: string, query: string): Promise<string[]> {
    const response = await engram.http().post('/v1/recall').send({ userId, query }).expect(200);
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(PHONE);
    expect(text).not.toContain(CARD);
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content).sort();
  }

  const QUERIES = ['预算是多少', '喝什么茶', 'which editor', 'what database do we use'];

  it('exports masked memories with history, imports them into a fresh instance that recalls the same, idempotently', async () => {
    const first = await source
      .http()
      .post('/v1/turns')
      .send(
        turnsBody('laozhou', 's1', [
          { turnId: 't1', text: `我的手机号是${PHONE}，我喜欢喝绿茶`, occurredAt: '2026-11-30T08:00:00Z' },
          { turnId: 't2', text: `卡号是${CARD}，预算控制在三万以内`, occurredAt: '2026-11-30T08:01:00Z' },
          { turnId: 't3', text: `Call me at ${INTL_PHONE}. I prefer VS Code for TypeScript work`, occurredAt: '2026-11-30T08:02:00Z' },
          { turnId: 't4', text: 'We use Oracle for the database', occurredAt: '2026-11-30T08:03:00Z' },
        ]),
      )
      .expect(202);
    await source.http().post('/v1/recall').send({ userId: 'laozhou', query: 'x', after: first.body.position }).expect(200);
    const second = await source
      .http()
      .post('/v1/turns')
      .send(turnsBody('laozhou', 's1', [{ turnId: 't5', text: '预算提到五万了', occurredAt: '2026-11-30T12:00:00Z' }]))
      .expect(202);
    await source.http().post('/v1/recall').send({ userId: 'laozhou', query: 'x', after: second.body.position }).expect(200);

    const bundle = (await source.http().get('/v1/users/laozhou/export').expect(200)).body;
    const text = JSON.stringify(bundle);
    expect(bundle).toMatchObject({ format: 'engram.export', version: 1, exportedAt: expect.any(String) });
    expect(text).not.toContain(PHONE);
    expect(text).not.toContain(CARD);
    expect(text).not.toContain('415 555');
    expect(text).not.toContain('tenantId');
    const budget = bundle.memories.find((m: { attribute: string }) => m.attribute === 'budget');
    expect(budget.value).toBe('五万');
    expect(budget.history.map((v: { value: string }) => v.value)).toEqual(['三万']);
    // facts: the pinned, active memories (which attributes are pinned is the resolver's rule).
    const pinned = bundle.memories.filter((m: { pinned: boolean; status: string }) => m.pinned && m.status === 'active');
    expect(bundle.facts.map((f: { memoryId: string }) => f.memoryId)).toEqual(pinned.map((m: { memoryId: string }) => m.memoryId));

    const imported = await target.http().post('/v1/users/laozhou/import').send(bundle).expect(200);
    expect(imported.body).toEqual({ memories: bundle.memories.length, added: bundle.memories.length, consistent: true });
    for (const query of QUERIES) {
      expect(await recall(target, 'laozhou', query)).toEqual(await recall(source, 'laozhou', query));
    }
    expect((await recall(target, 'laozhou', '预算是多少')).some((c) => c.includes('五万'))).toBe(true);

    // Importing again changes nothing; the re-exported bundle holds the same memories.
    const again = await target.http().post('/v1/users/laozhou/import').send(bundle).expect(200);
    expect(again.body).toMatchObject({ added: 0, consistent: true });
    const roundTrip = (await target.http().get('/v1/users/laozhou/export').expect(200)).body;
    const comparable = (b: typeof bundle) =>
      b.memories
        .map(({ memoryId: _id, ...m }: { memoryId: string }) => m)
        .sort((x: { mergeKey: string }, y: { mergeKey: string }) => (x.mergeKey < y.mergeKey ? -1 : 1));
    expect(comparable(roundTrip)).toEqual(comparable(bundle));

    for (const engram of [source, target]) {
      const onDisk = readAllFiles(engram.dataDir);
      expect(onDisk).not.toContain(PHONE);
      expect(onDisk).not.toContain(CARD);
      expect(onDisk).not.toContain('415 555 2671');
    }
  });

  it('masks PII a hand-made bundle carries', async () => {
    const bundle = (await source.http().get('/v1/users/nobody/export').expect(200)).body;
    expect(bundle.memories).toEqual([]);
    const memory = {
      memoryId: 'm1',
      mergeKey: 'user/phone-note',
      kind: 'fact',
      subject: 'user',
      attribute: 'phone-note',
      value: PHONE,
      content: `我的手机号是${PHONE}`,
      entities: [],
      confidence: 0.9,
      importance: 0.5,
      ephemeral: false,
      pinned: false,
      status: 'active',
      version: 1,
      revision: 1,
      mentionCount: 1,
      sourceTurnIds: ['t1'],
      validFrom: '2026-11-30T08:00:00.000Z',
      validTo: null,
      createdAt: '2026-11-30T08:00:00.000Z',
      updatedAt: '2026-11-30T08:00:00.000Z',
      lastSeenAt: '2026-11-30T08:00:00.000Z',
      history: [],
    };
    await target
      .http()
      .post('/v1/users/u1/import')
      .send({ ...bundle, memories: [memory] })
      .expect(200);
    const exported = JSON.stringify((await target.http().get('/v1/users/u1/export').expect(200)).body);
    expect(exported).toContain('[PHONE]');
    expect(exported).not.toContain(PHONE);
    expect(readAllFiles(target.dataDir)).not.toContain(PHONE);
  });

  it('rejects an invalid bundle with 400 naming the fields, storing nothing', async () => {
    const response = await target
      .http()
      .post('/v1/users/u1/import')
      .send({
        format: 'something-else',
        version: 2,
        exportedAt: 'today',
        memories: [{ memoryId: 'm1', kind: 'nonsense', confidence: 3, version: 6.98e29, revision: 2 ** 53, sensitive: null }],
      })
      .expect(400);
    // A version or count JavaScript cannot hold exactly would come back as `6.98e+29`, not an integer.
    expect(response.body.fields).toEqual(
      expect.arrayContaining([
        'format',
        'version',
        'exportedAt',
        'memories.0.kind',
        'memories.0.confidence',
        'memories.0.version',
        'memories.0.revision',
        'memories.0.sensitive',
      ]),
    );
    expect((await target.http().get('/v1/users/u1/memories?status=all').expect(200)).body.memories).toEqual([]);
  });

  it('exports and imports with the command line (engram export --out, engram import)', async () => {
    const position = (
      await source
        .http()
        .post('/v1/turns')
        .send(turnsBody('mei', 's1', [{ turnId: 't1', text: `我的手机号是${PHONE}，我们的数据库是甲骨文数据库` }]))
        .expect(202)
    ).body.position;
    await source.http().post('/v1/recall').send({ userId: 'mei', query: 'x', after: position }).expect(200);
    await source.stop();
    await target.stop();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-export-')), 'mei.json');
    const modules = {
      server: (config: ReturnType<typeof loadConfig>) => EngramModule.forRoot({ config }),
      rebuild: (config: ReturnType<typeof loadConfig>) => EngramModule.forMaintenance({ config }),
    };
    const run = async (dataDir: string, args: string[]) => {
      const saved = { ...process.env };
      const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        Object.assign(process.env, { ENGRAM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
        await buildCli(modules).parseAsync(['node', 'engram', ...args]);
        return log.mock.calls.map((c) => String(c[0]));
      } finally {
        log.mockRestore();
        error.mockRestore();
        process.env = saved;
      }
    };
    await run(source.dataDir, ['export', 'mei', '--out', file]);
    expect(fs.readFileSync(file, 'utf8')).not.toContain(PHONE);
    const [summary] = await run(target.dataDir, ['import', 'mei', file]);
    expect(JSON.parse(summary)).toMatchObject({ added: expect.any(Number), consistent: true });
    expect(JSON.parse(summary).added).toBeGreaterThan(0);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });

    const restarted = await startEngram({ dataDir: target.dataDir });
    try {
      const found = (await restarted.http().post('/v1/recall').send({ userId: 'mei', query: 'Oracle' }).expect(200)).body;
      expect(JSON.stringify(found)).toContain('甲骨文');
    } finally {
      await restarted.stop();
    }
  });
});
