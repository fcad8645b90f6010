import { Client } from '@elastic/elasticsearch';
import { ElasticsearchSearchIndex } from '@engram/adapters-elasticsearch';
import { Embedder, FactStore, SearchIndex } from '@engram/ports';
import { tokenize } from '@engram/domain';
import { DEFAULT_TENANT, OnlineRebuildProgress, OnlineSearchRebuild, PipelineProgress } from '@engram/services';
import { infra, loadDeployment } from '../support/distributed-deployment';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/**
 * Distributed only: the search projection is rebuilt into a new Elasticsearch
 * index version while the live one keeps serving recall, then the alias swaps
 * and the old version is dropped.
 */
jest.setTimeout(240_000);

const CONVERSATIONS: Record<string, string[]> = {
  zhou: ['我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL', '预算控制在三万以内', '我喜欢用 VS Code', '每周三下午两点例会'],
  mary: ['I prefer VS Code for TypeScript work', 'my name is Mary and I work at Globex', 'we decided to use Kafka for the event bus'],
  li: ['我不吃辣', '我们决定用 Kafka 做消息队列', 'the deadline is Friday'],
};
/** Turns ingested while the rebuild runs: before the swap (applied by the live indexer to the old version) and around it. */
const DURING_BEFORE_SWAP: Record<string, string[]> = { wang: ['我喜欢用 IntelliJ 写 Java', '我们的数据库用 MySQL'] };
const DURING_AROUND_SWAP: Record<string, string[]> = { john: ['I prefer Emacs for Rust work', 'we decided to use Redis for caching'] };

const QUERIES = [
  { userId: 'zhou', query: '数据库用什么', expect: 'PostgreSQL' },
  { userId: 'zhou', query: '他喜欢什么编辑器 VS Code', expect: 'VS Code' },
  { userId: 'mary', query: 'which editor does she prefer', expect: 'VS Code' },
  { userId: 'mary', query: 'event bus Kafka', expect: 'Kafka' },
  { userId: 'li', query: '消息队列用什么', expect: 'Kafka' },
];
const NEW_QUERIES = [
  { userId: 'wang', query: '数据库用什么', expect: 'MySQL' },
  { userId: 'wang', query: 'IntelliJ 编辑器', expect: 'IntelliJ' },
  { userId: 'john', query: 'which editor for Rust', expect: 'Emacs' },
  { userId: 'john', query: 'Redis caching', expect: 'Redis' },
];
const ALL_USERS = [...Object.keys(CONVERSATIONS), ...Object.keys(DURING_BEFORE_SWAP), ...Object.keys(DURING_AROUND_SWAP)];

interface RecallBody {
  memories: { id: string; content: string }[];
  facts: { id: string; content: string }[];
}

describe('online search rebuild (distributed)', () => {
  let engram: EngramHarness;
  let es: Client;

  beforeAll(() => {
    es = new Client({ node: infra.elasticsearchUrl });
  });
  afterAll(async () => {
    await engram?.destroy();
    await es?.close();
  });

  async function ingest(conversations: Record<string, string[]>, tag: string): Promise<void> {
    for (const [userId, texts] of Object.entries(conversations)) {
      const turns = texts.map((text, i) => ({ turnId: `${userId}-${tag}-${i}`, text, occurredAt: new Date(Date.UTC(2026, 10, 1 + i, 9)).toISOString() }));
      await engram.http().post('/v1/turns').send(turnsBody(userId, 's1', turns)).expect(202);
    }
  }

  async function settle(): Promise<void> {
    const progress = engram.app.get(PipelineProgress);
    for (let i = 0; i < 2400; i++) {
      if ((await progress.pending()) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('pipeline did not settle');
  }

  async function recall(userId: string, query: string): Promise<{ status: number; body: RecallBody }> {
    const response = await engram.http().post('/v1/recall').send({ userId, query });
    return { status: response.status, body: response.body as RecallBody };
  }

  /** What recall answers from search: the memories' ids and contents, order-free (access statistics may reorder). */
  const answer = (body: RecallBody) => body.memories.map((m) => `${m.id} ${m.content}`).sort();
  const found = (body: RecallBody, expected: string) => body.memories.some((m) => m.content.includes(expected));

  /** The search projection of the users, through the port, read from one index version. */
  async function snapshot(index: SearchIndex, dimensions: number) {
    const facts = engram.app.get<FactStore>(FactStore);
    const embedder = engram.app.get<Embedder>(Embedder);
    const result: Record<string, unknown> = {};
    for (const userId of ALL_USERS) {
      const memories = await facts.list({ tenantId: DEFAULT_TENANT, userId });
      const ids = memories.map((m) => m.memoryId);
      const query = [...(CONVERSATIONS[userId] ?? []), ...(DURING_BEFORE_SWAP[userId] ?? []), ...(DURING_AROUND_SWAP[userId] ?? [])].join(' ');
      expect(dimensions).toBe(embedder.dimensions);
      result[userId] = {
        revisions: [...(await index.revisions(DEFAULT_TENANT, userId, ids)).entries()].sort(),
        count: await index.countUser(DEFAULT_TENANT, userId),
        text: await index.searchText({ tenantId: DEFAULT_TENANT, userId, terms: tokenize(query), limit: 50 }),
        vector: await index.searchVector({ tenantId: DEFAULT_TENANT, userId, vector: (await embedder.embed([query]))[0], limit: 50 }),
      };
    }
    return result;
  }

  it('a rebuild into a new index version swaps the alias while recall keeps answering', async () => {
    engram = await startEngram({ mode: 'distributed' });
    const { indexPrefix } = loadDeployment(engram.dataDir);
    const dimensions = engram.app.get<Embedder>(Embedder).dimensions;

    await ingest(CONVERSATIONS, 'a');
    await settle();
    const before = new Map<string, string[]>();
    for (const q of QUERIES) {
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(found(body, q.expect)).toBe(true);
      before.set(`${q.userId} ${q.query}`, answer(body));
    }
    expect(Object.keys(await es.indices.getAlias({ name: indexPrefix }))).toEqual([`${indexPrefix}-v1`]);

    // Recall without pause during the whole rebuild (bounded by count and time).
    const observed: { status: number; present: boolean; query: string }[] = [];
    let stop = false;
    const loop = (async () => {
      const deadline = Date.now() + 180_000;
      for (let i = 0; !stop && i < 5000 && Date.now() < deadline; i++) {
        const q = QUERIES[i % QUERIES.length];
        const { status, body } = await recall(q.userId, q.query);
        observed.push({ status, present: status === 200 && found(body, q.expect), query: `${q.userId} ${q.query}` });
      }
    })();

    const progress: OnlineRebuildProgress[] = [];
    let observedBeforeSwap = 0;
    const result = await engram.app.get(OnlineSearchRebuild).run({
      onProgress: (p) => progress.push(p),
      beforeSwap: async () => {
        // Decisions the live indexer applies to the old version while the new one is being built...
        await ingest(DURING_BEFORE_SWAP, 'b');
        await settle();
        // ...and some racing the swap.
        await ingest(DURING_AROUND_SWAP, 'c');
        observedBeforeSwap = observed.length;
      },
    });
    await result.oldDropped;
    const observedAtSwap = observed.length;
    // Keep recalling a little after the swap too.
    while (observed.length < observedAtSwap + 2 * QUERIES.length) await new Promise((resolve) => setTimeout(resolve, 10));
    stop = true;
    await loop;

    // Recall answered all along, with the expected memory.
    expect(observedBeforeSwap).toBeGreaterThan(0);
    expect(observed.length).toBeGreaterThan(observedBeforeSwap);
    expect(observed.filter((o) => o.status !== 200 || !o.present)).toEqual([]);

    // The alias points at v2, v1 is gone.
    expect(result).toMatchObject({ version: 2, previousVersion: 1 });
    expect(result.events).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ phase: 'replaying', version: 2, done: 0 });
    expect(progress.some((p) => p.phase === 'swapped')).toBe(true);
    expect(progress[progress.length - 1]).toMatchObject({ phase: 'done', done: result.events });
    for (const p of progress) expect(p.done).toBeLessThanOrEqual(p.total);
    expect(Object.keys(await es.indices.getAlias({ name: indexPrefix }))).toEqual([`${indexPrefix}-v2`]);
    expect((await es.indices.exists({ index: `${indexPrefix}-v1` }))).toBe(false);

    // The new version holds exactly the fact store's memories (at their revisions), the turns of the rebuild included.
    await settle();
    const v2 = new ElasticsearchSearchIndex({ client: es, indexPrefix, dimensions, version: 2, activate: false });
    const facts = engram.app.get<FactStore>(FactStore);
    for (const userId of ALL_USERS) {
      const memories = await facts.list({ tenantId: DEFAULT_TENANT, userId });
      expect(memories.length).toBeGreaterThan(0);
      const revisions = await v2.revisions(DEFAULT_TENANT, userId, memories.map((m) => m.memoryId));
      expect([...revisions.entries()].sort()).toEqual(memories.map((m) => [m.memoryId, m.revision]).sort());
      expect(await v2.countUser(DEFAULT_TENANT, userId)).toBe(memories.length);
    }
    // What the live port serves (through the alias) is the new version's content.
    expect(await snapshot(engram.app.get<SearchIndex>(SearchIndex), dimensions)).toEqual(await snapshot(v2, dimensions));

    // Recall after the rebuild: the same answers as before, plus the new turns' memories.
    for (const q of QUERIES) {
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(answer(body)).toEqual(before.get(`${q.userId} ${q.query}`));
    }
    for (const q of NEW_QUERIES) {
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(found(body, q.expect)).toBe(true);
    }

    // A restarted deployment keeps serving the rebuilt version: it must not create an empty v1 again.
    await engram.stop();
    engram = await startEngram({ mode: 'distributed', dataDir: engram.dataDir });
    expect(Object.keys(await es.indices.getAlias({ name: indexPrefix }))).toEqual([`${indexPrefix}-v2`]);
    expect(await es.indices.exists({ index: `${indexPrefix}-v1` })).toBe(false);
    for (const q of QUERIES) {
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(answer(body)).toEqual(before.get(`${q.userId} ${q.query}`));
    }
  });
});
