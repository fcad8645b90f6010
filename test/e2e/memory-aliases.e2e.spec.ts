import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/** Entity normalisation (issue 4, point 3): one entity under its Chinese and English names. */
describe('entity aliases (HTTP)', () => {
  let engram: EngramHarness;

  beforeEach(async () => {
    engram = await startEngram({ env: { ENGRAM_ENTITY_ALIASES: '{"Snowflake": ["雪花数仓"]}' } });
  });
  afterEach(async () => engram.destroy());

  async function ingest(userId: string, texts: string[]) {
    const turns = texts.map((text, i) => ({ turnId: `t${i + 1}`, text }));
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', turns))
      .expect(202);
    return response.body.position as string;
  }

  async function recall(userId: string, query: string, after?: string): Promise<string[]> {
    const response = await engram
      .http()
      .post('/v1/recall')
      .send({ userId, query, ...(after ? { after } : {}) })
      .expect(200);
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content);
  }

  it('finds "甲骨文数据库" when asked about Oracle', async () => {
    const after = await ingest('laozhou', ['我们用的是甲骨文数据库', '我喜欢用 VS Code']);
    const found = await recall('laozhou', 'Oracle', after);
    expect(found[0]).toContain('甲骨文');
  });

  it('finds "Oracle" when asked about 甲骨文', async () => {
    const after = await ingest('sam', ['We use Oracle for the database', 'I prefer VS Code for TypeScript work']);
    const found = await recall('sam', '甲骨文', after);
    expect(found[0]).toContain('Oracle');
  });

  it('uses configured aliases (ENGRAM_ENTITY_ALIASES)', async () => {
    const after = await ingest('lin', ['记住：我们的数据仓库是雪花数仓', 'I prefer VS Code for TypeScript work']);
    expect((await recall('lin', 'Snowflake', after))[0]).toContain('雪花数仓');
  });

  it('learns an alias glossed in two turns, and not from one', async () => {
    const after = await ingest('mei', ['记住：白鲸（Blackwhale）是我们的主库', '记住：白鲸周末停机维护']);
    // One gloss is not enough to trust: "Blackwhale" finds only the memory that spells it.
    const once = await recall('mei', 'Blackwhale', after);
    expect(once.some((c) => c.includes('周末停机'))).toBe(false);

    const again = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('mei', 's1', [{ turnId: 't9', text: '记住：白鲸（Blackwhale）每周五备份' }]))
      .expect(202);
    const twice = await recall('mei', 'Blackwhale', again.body.position);
    expect(twice.some((c) => c.includes('周末停机'))).toBe(true);
  });

  it('refuses a bad alias table at start-up, naming the variable', async () => {
    await expect(startEngram({ env: { ENGRAM_ENTITY_ALIASES: '{"Oracle": "甲骨文"}' } })).rejects.toThrow(/ENGRAM_ENTITY_ALIASES/);
  });
});
