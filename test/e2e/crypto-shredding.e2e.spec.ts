import * as fs from 'node:fs';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { RuleExtractor } from '@engram/domain';
import { OnlineRebuilds, Reprocessor, startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { filesOf, occurrences } from '../support/data-scan';
import { EngramHarness, rebuildOffline, startEngram, turnsBody } from '../support/engram-harness';
import { drained } from '../support/old-engram';

/*
 * Forgotten means gone, physically (docs/security.md): a user's distinctive words (Chinese and
 * English) and PII go in through HTTP, the user is forgotten, the projections are rebuilt online
 * and offline and the turns reprocessed; then every byte of every file of the data directory
 * (the database, its -wal and -shm, the master key) is searched for those words, raw and in the
 * hex the search index stores terms as: none. Another user's words stay, recallable, and are
 * found by the same scan in the projections, so the scan is known to see what is there.
 */
jest.setTimeout(120_000);

const FORGOTTEN = 'shredded-user';
const KEPT = 'kept-user';
const FORGOTTEN_WORDS = ['Quillbramble', 'Zephyrinex', '琥珀猫头鹰', '紫檀琵琶'];
const FORGOTTEN_PII = ['zephyrine.q@example.com', '13800138000'];
const KEPT_WORDS = ['Marmalorian', '翡翠蜻蜓'];

describe('crypto-shredding: a forgotten user leaves nothing readable in the data directory', () => {
  let engram: EngramHarness | undefined;
  let maintenance: INestApplication | undefined;

  afterAll(async () => {
    await maintenance?.close();
    await engram?.destroy();
  });

  async function recall(userId: string, query: string, after?: string): Promise<string> {
    const response = await engram!.http().post('/v1/recall').send({ userId, query, after, k: 20 }).expect(200);
    return JSON.stringify(response.body);
  }

  it('forgets, rebuilds and reprocesses: 0 occurrences of the forgotten words anywhere, the kept user intact', async () => {
    engram = await startEngram({ env: { ENGRAM_REBUILD_GRACE_MS: '200' } });
    const http = engram.http;

    await http()
      .post('/v1/turns')
      .send(
        turnsBody(FORGOTTEN, 's1', [
          { turnId: 't1', text: `我叫Zephyrinex，我最喜欢的乐器是紫檀琵琶。我的邮箱是 ${FORGOTTEN_PII[0]}，电话 ${FORGOTTEN_PII[1]}。` },
          {
            turnId: 't2',
            role: 'assistant',
            text: '好的，我记住了：你喜欢紫檀琵琶。I recommend the Quillbramble tea house for 琥珀猫头鹰 pastries.',
          },
          { turnId: 't3', text: 'My cat is called Quillbramble and I love 琥珀猫头鹰 cookies.' },
          { turnId: 't4', text: 'I prefer Quillbramble notebooks over any other brand.' },
        ]),
      )
      .expect(202);
    await http()
      .put(`/v1/users/${FORGOTTEN}/profile`)
      .send({ attributes: { city: '紫檀琵琶镇' } })
      .expect(200);
    const keptPosition = (
      await http()
        .post('/v1/turns')
        .send(
          turnsBody(KEPT, 's1', [
            { turnId: 'k1', text: 'My dog is called Marmalorian and I love 翡翠蜻蜓 tea.' },
            { turnId: 'k2', text: 'I prefer Marmalorian leashes over any other brand.' },
          ]),
        )
        .expect(202)
    ).body.position as string;

    // Both users' words are there to be found first: in recall, and by the scan (projections hold text).
    expect(await recall(FORGOTTEN, 'Quillbramble 琥珀猫头鹰 紫檀琵琶', keptPosition)).toContain('Quillbramble');
    expect(await recall(KEPT, 'Marmalorian 翡翠蜻蜓')).toContain('Marmalorian');
    await drained(engram.app);
    expect(occurrences(engram.dataDir, ['Quillbramble', 'Marmalorian']).length).toBeGreaterThan(0);

    await http().delete(`/v1/users/${FORGOTTEN}`).expect(200);

    // Online rebuild of every projection, then a reprocess from the beginning, activated.
    for (const projection of ['facts', 'sessions', 'search'] as const) await engram.app.get(OnlineRebuilds).run(projection);
    const config = loadConfig({ LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent', ENGRAM_DATA_DIR: engram.dataDir });
    maintenance = await startApp(EngramModule.forMaintenance({ config }), { http: false, stages: false });
    const reprocessor = maintenance.get(Reprocessor);
    const built = await reprocessor.run({ from: 'beginning', extractorVersion: new RuleExtractor().version });
    await reprocessor.activate(built.factsVersion, { overlapMs: 20 });
    await maintenance.close();
    maintenance = undefined;
    await drained(engram.app);

    // While the server runs: the database with its -wal and -shm as they are now.
    if (process.env.KEEP_SCAN_DIR) fs.cpSync(engram.dataDir, process.env.KEEP_SCAN_DIR, { recursive: true });
    expect(filesOf(engram.dataDir).map((f) => f.name)).toEqual(
      expect.arrayContaining(['engram.db', 'engram.db-wal', 'engram.db-shm', 'master.key']),
    );
    expect(occurrences(engram.dataDir, [...FORGOTTEN_WORDS, ...FORGOTTEN_PII])).toEqual([]);
    expect(await recall(FORGOTTEN, 'Quillbramble 琥珀猫头鹰 紫檀琵琶 Zephyrinex')).not.toMatch(
      /Quillbramble|琥珀猫头鹰|紫檀琵琶|Zephyrinex/,
    );
    expect(await recall(KEPT, 'Marmalorian 翡翠蜻蜓')).toContain('Marmalorian');

    // Offline, as an operator would: rebuild everything from the log, scan again, serve again.
    await engram.stop();
    expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);
    expect(occurrences(engram.dataDir, [...FORGOTTEN_WORDS, ...FORGOTTEN_PII])).toEqual([]);
    expect(occurrences(engram.dataDir, KEPT_WORDS)).not.toEqual([]); // the scan does see text that is there
    const dataDir = engram.dataDir;
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian 翡翠蜻蜓')).toContain('Marmalorian');
    expect(await recall(KEPT, 'Marmalorian 翡翠蜻蜓')).toContain('翡翠蜻蜓');
    expect(await recall(FORGOTTEN, 'Quillbramble 琥珀猫头鹰 紫檀琵琶 Zephyrinex')).not.toMatch(
      /Quillbramble|琥珀猫头鹰|紫檀琵琶|Zephyrinex/,
    );
  });

  it('keeps the data directory to its owner: 0700, every file 0600', async () => {
    const dataDir = engram!.dataDir;
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const { name } of filesOf(dataDir)) {
      expect({ name, mode: (fs.statSync(path.join(dataDir, name)).mode & 0o777).toString(8) }).toEqual({ name, mode: '600' });
    }
  });
});
