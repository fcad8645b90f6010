import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngramHarness, rebuildOffline, startEngram, turnsBody, useEngramMode } from '../support/engram-harness';
import { dumpDeployment, loadDeployment } from '../support/distributed-deployment';

/*
 * The distributed twin of test/e2e/crypto-shredding.e2e.spec.ts: a user's words go in, the user
 * is forgotten, the projections are rebuilt offline; then the deployment's Kafka log segments (the
 * files on the broker's disk), every message of its topics, every MongoDB document and every
 * Elasticsearch document are searched for those words: none. Another user's words are found in the
 * same dump and still recalled, so the scan sees what is there.
 */
useEngramMode('distributed');
jest.setTimeout(240_000);

/** The local broker's log.dirs (deploy/local/kafka.sh). */
const KAFKA_DATA = path.join(process.env.ENGRAM_INFRA_CACHE ?? path.join(__dirname, '../../.cache/infra'), 'run/kafka/data');
const FORGOTTEN = 'shredded-user';
const KEPT = 'kept-user';
const FORGOTTEN_WORDS = ['Quillbramble', 'Zephyrinex', '琥珀猫头鹰', '紫檀琵琶'];
const KEPT_WORDS = ['Marmalorian', '翡翠蜻蜓'];

/** Every segment file of the deployment's topics (directories `<topic>-<partition>`), as bytes. */
function segmentsOf(topicPrefix: string): Buffer[] {
  return fs
    .readdirSync(KAFKA_DATA, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(topicPrefix))
    .flatMap((entry) => {
      const dir = path.join(KAFKA_DATA, entry.name);
      return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .map((f) => fs.readFileSync(path.join(dir, f)));
    });
}

const inBytes = (buffers: readonly Buffer[], words: readonly string[]) =>
  words.filter((word) => buffers.some((b) => b.includes(Buffer.from(word, 'utf8')) || b.includes(Buffer.from(word.toLowerCase(), 'utf8'))));
const inText = (text: string, words: readonly string[]) => words.filter((word) => text.includes(word) || text.includes(word.toLowerCase()));

describe('crypto-shredding, distributed: nothing readable of a forgotten user in Kafka, MongoDB or Elasticsearch', () => {
  let engram: EngramHarness | undefined;

  afterAll(async () => {
    await engram?.destroy();
  });

  async function recall(userId: string, query: string, after?: string): Promise<string> {
    const response = await engram!.http().post('/v1/recall').send({ userId, query, after, k: 20 }).expect(200);
    return JSON.stringify(response.body);
  }

  it('forgets and rebuilds: 0 occurrences in the segments, the topics and both stores; the kept user intact', async () => {
    expect(fs.existsSync(KAFKA_DATA)).toBe(true);
    engram = await startEngram();
    const http = engram.http;
    const deployment = loadDeployment(engram.dataDir);

    await http()
      .post('/v1/turns')
      .send(
        turnsBody(FORGOTTEN, 's1', [
          { turnId: 't1', text: '我叫Zephyrinex，我最喜欢的乐器是紫檀琵琶。' },
          { turnId: 't2', role: 'assistant', text: 'I recommend the Quillbramble tea house for 琥珀猫头鹰 pastries.' },
          { turnId: 't3', text: 'My cat is called Quillbramble and I love 琥珀猫头鹰 cookies.' },
        ]),
      )
      .expect(202);
    const position = (
      await http()
        .post('/v1/turns')
        .send(turnsBody(KEPT, 's1', [{ turnId: 'k1', text: 'My dog is called Marmalorian and I love 翡翠蜻蜓 tea.' }]))
        .expect(202)
    ).body.position as string;
    expect(await recall(FORGOTTEN, 'Quillbramble 琥珀猫头鹰', position)).toContain('Quillbramble');
    expect(inText(await dumpDeployment(deployment), ['Quillbramble'])).toEqual(['Quillbramble']); // the projections hold it

    await http().delete(`/v1/users/${FORGOTTEN}`).expect(200);
    await engram.stop();
    expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);

    const segments = segmentsOf(deployment.topicPrefix);
    expect(segments.length).toBeGreaterThan(0);
    expect(inBytes(segments, FORGOTTEN_WORDS)).toEqual([]);
    expect(inBytes(segments, [KEPT])).toEqual([KEPT]); // the segments are read as written: envelopes show
    const stored = await dumpDeployment(deployment);
    expect(inText(stored, FORGOTTEN_WORDS)).toEqual([]);
    expect(inText(stored, KEPT_WORDS)).toEqual(KEPT_WORDS);

    engram = await startEngram({ dataDir: engram.dataDir });
    expect(await recall(KEPT, 'Marmalorian 翡翠蜻蜓')).toContain('Marmalorian');
    expect(await recall(FORGOTTEN, 'Quillbramble 琥珀猫头鹰 紫檀琵琶 Zephyrinex')).not.toMatch(
      /Quillbramble|琥珀猫头鹰|紫檀琵琶|Zephyrinex/,
    );
  });
});
