import { Client } from '@elastic/elasticsearch';
import { ElasticsearchSearchIndex } from '@engram/adapters-elasticsearch';
import { Embedder, FactStore, FactStoreVersions, ProjectionVersions, SearchIndex, SessionStore, SessionStoreVersions } from '@engram/ports';
import { tokenize } from '@engram/domain';
import { DEFAULT_TENANT, OnlineRebuilds, PipelineProgress, RebuildStatus } from '@engram/services';
import { infra, loadDeployment } from '../support/distributed-deployment';
import { EngramHarness, rebuildOffline, startEngram, turnsBody } from '../support/engram-harness';

/**
 * Distributed only: projections are rebuilt into new versions (an Elasticsearch
 * index behind the alias; MongoDB collections behind a pointer document) while
 * the live ones keep serving recall, then swapped, and the old versions dropped.
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

describe('online rebuild (distributed)', () => {
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
      const turns = texts.map((text, i) => ({
        turnId: `${userId}-${tag}-${i}`,
        text,
        occurredAt: new Date(Date.UTC(2026, 10, 1 + i, 9)).toISOString(),
      }));
      await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, 's1', turns))
        .expect(202);
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
      const query = [...(CONVERSATIONS[userId] ?? []), ...(DURING_BEFORE_SWAP[userId] ?? []), ...(DURING_AROUND_SWAP[userId] ?? [])].join(
        ' ',
      );
      expect(dimensions).toBe(embedder.dimensions);
      result[userId] = {
        revisions: [...(await index.revisions(DEFAULT_TENANT, userId, ids)).entries()].sort(),
        count: await index.countUser(DEFAULT_TENANT, userId),
        text: await index.searchText({ tenantId: DEFAULT_TENANT, userId, terms: tokenize(query), limit: 50 }),
        vector: await index.searchVector({
          tenantId: DEFAULT_TENANT,
          userId,
          vector: (await embedder.embed([query], 'query'))[0],
          limit: 50,
        }),
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

    const rebuilds = engram.app.get(OnlineRebuilds);
    const progress: RebuildStatus[] = [];
    const poll = setInterval(
      () => void rebuilds.status().then((all) => progress.push(...all.filter((r) => r.projection === 'search'))),
      50,
    );
    let observedBeforeSwap = 0;
    const result = await rebuilds.run('search', {
      graceMs: 1500,
      beforeSwap: async () => {
        // Decisions the live indexer applies to the old version while the new one is being built...
        await ingest(DURING_BEFORE_SWAP, 'b');
        await settle();
        // ...and some racing the swap.
        await ingest(DURING_AROUND_SWAP, 'c');
        observedBeforeSwap = observed.length;
      },
    });
    clearInterval(poll);
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
    expect(result).toMatchObject({ projection: 'search', version: 2, previousVersion: 1, phase: 'done' });
    expect(result.done).toBeGreaterThan(0);
    expect(progress.some((p) => p.phase === 'swapped' && p.version === 2)).toBe(true);
    expect((await rebuilds.status()).find((r) => r.projection === 'search')).toMatchObject({ phase: 'done', done: result.done });
    for (const p of progress) expect(p.done).toBeLessThanOrEqual(p.total);
    expect(Object.keys(await es.indices.getAlias({ name: indexPrefix }))).toEqual([`${indexPrefix}-v2`]);
    expect(await es.indices.exists({ index: `${indexPrefix}-v1` })).toBe(false);

    // The new version holds exactly the fact store's memories (at their revisions), the turns of the rebuild included.
    await settle();
    const v2 = new ElasticsearchSearchIndex({ client: es, indexPrefix, dimensions, version: 2, activate: false });
    const facts = engram.app.get<FactStore>(FactStore);
    for (const userId of ALL_USERS) {
      const memories = await facts.list({ tenantId: DEFAULT_TENANT, userId });
      expect(memories.length).toBeGreaterThan(0);
      const revisions = await v2.revisions(
        DEFAULT_TENANT,
        userId,
        memories.map((m) => m.memoryId),
      );
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

  it('rebuilds facts and sessions into new collections while ingesting; a stopped rebuild resumes from its Kafka checkpoint', async () => {
    // Slow (rate-limited) so the stop lands mid-way; a grace period longer than the pointer cache (1 s).
    const env = { ENGRAM_REBUILD_RATE_LIMIT: '40', ENGRAM_REBUILD_GRACE_MS: '1500' };
    await engram?.destroy();
    engram = await startEngram({ mode: 'distributed', env });
    const dataDir = engram.dataDir;
    await ingest(CONVERSATIONS, 'a');
    await ingest(DURING_BEFORE_SWAP, 'b');
    await settle();
    const http = () => engram.http();
    const statuses = async () => ((await http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] }).rebuilds;

    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(202);
    await http().post('/v1/admin/rebuilds').send({ projection: 'sessions' }).expect(202);
    let beforeStop: RebuildStatus[];
    for (;;) {
      beforeStop = await statuses();
      expect(beforeStop.every((r) => r.phase === 'replaying')).toBe(true);
      if (beforeStop.length === 2 && beforeStop.every((r) => r.done >= 5)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A stop mid-way (SIGTERM: the batch in flight is committed) ...
    await engram.stop();
    // ... and a start: the same rebuilds (version 2) continue from their consumer groups' offsets.
    engram = await startEngram({ mode: 'distributed', dataDir, env });
    const resumed = await statuses();
    expect(resumed.map((r) => [r.projection, r.version]).sort()).toEqual([
      ['facts', 2],
      ['sessions', 2],
    ]);
    for (const r of resumed) {
      const stopped = beforeStop.find((b) => b.projection === r.projection)!;
      expect(r.done).toBeGreaterThanOrEqual(stopped.done);
    }
    // Live traffic during the rest of the rebuild, recall answering throughout.
    await ingest(DURING_AROUND_SWAP, 'c');
    let final: RebuildStatus[];
    for (let i = 0; ; i++) {
      final = await statuses();
      if (final.every((r) => r.phase === 'done' || r.phase === 'failed')) break;
      const q = QUERIES[i % QUERIES.length];
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(found(body, q.expect)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(final.map((r) => [r.projection, r.version, r.phase]).sort()).toEqual([
      ['facts', 2, 'done'],
      ['sessions', 2, 'done'],
    ]);
    await settle();

    // Version 2 serves, version 1's collections are gone.
    for (const token of [FactStoreVersions, SessionStoreVersions]) {
      const versions = engram.app.get<ProjectionVersions<object>>(token);
      expect(await versions.active()).toBe(2);
      expect(await versions.list()).toEqual([2]);
    }
    for (const q of [...QUERIES, ...NEW_QUERIES]) {
      const { status, body } = await recall(q.userId, q.query);
      expect(status).toBe(200);
      expect(found(body, q.expect)).toBe(true);
    }

    // Equal to a from-scratch rebuild (offline, into the active version 2).
    const stored = async () => {
      const facts = engram.app.get<FactStore>(FactStore);
      const sessions = engram.app.get<SessionStore>(SessionStore);
      const all: Record<string, unknown> = {};
      for (const userId of ALL_USERS) {
        all[userId] = {
          memories: await facts.list({ tenantId: DEFAULT_TENANT, userId }),
          turns: await sessions.recent(DEFAULT_TENANT, userId, 's1', 1000),
        };
      }
      return all;
    };
    const online = await stored();
    for (const userId of ALL_USERS) expect((online[userId] as { memories: unknown[] }).memories.length).toBeGreaterThan(0);
    await engram.stop();
    await rebuildOffline(dataDir, { mode: 'distributed' });
    engram = await startEngram({ mode: 'distributed', dataDir, env });
    expect(await stored()).toEqual(online);
  });
});
