import { Topics } from '@engram/contracts';
import { DEFAULT_TENANT, EventPublisher } from '@engram/services';
import { AccessStore, FactStore, SearchIndex, SessionStore } from '@engram/ports';
import { tokenize } from '@engram/domain';
import { HashingEmbedder } from '@engram/embedding';
import { EngramHarness, EngramMode, engramMode, rebuildOffline, startEngram, turnsBody, useEngramMode } from '../engram-harness';

const USERS = ['zhou', 'mary', 'li'];

const CONVERSATIONS: Record<string, string[]> = {
  zhou: [
    '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL',
    '预算控制在三万以内',
    '嗯嗯',
    '预算提到五万了',
    '我喜欢用 VS Code',
    '我喜欢用 VS Code',
    '每周三下午两点例会',
  ],
  mary: [
    'I prefer VS Code for TypeScript work',
    'my name is Mary and I work at Globex',
    'thanks!',
    'we decided to use Kafka for the event bus',
  ],
  li: ['我不吃辣', '我们决定用 Kafka 做消息队列', 'the deadline is Friday'],
};

/** Everything each projection holds for the test users, through the ports. */
async function snapshot(engram: EngramHarness) {
  const facts = engram.app.get<FactStore>(FactStore);
  const sessions = engram.app.get<SessionStore>(SessionStore);
  const search = engram.app.get<SearchIndex>(SearchIndex);
  const access = engram.app.get<AccessStore>(AccessStore);
  const embedder = new HashingEmbedder(256);
  const result: Record<string, unknown> = {};
  for (const userId of USERS) {
    const memories = await facts.list({ tenantId: DEFAULT_TENANT, userId });
    const ids = memories.map((m) => m.memoryId);
    const query = CONVERSATIONS[userId].join(' ');
    result[userId] = {
      memories,
      sessions: await sessions.recent(DEFAULT_TENANT, userId, 's1', 1000),
      searchRevisions: [...(await search.revisions(DEFAULT_TENANT, userId, ids)).entries()].sort(),
      text: await search.searchText({ tenantId: DEFAULT_TENANT, userId, terms: tokenize(query), limit: 50 }),
      vector: await search.searchVector({
        tenantId: DEFAULT_TENANT,
        userId,
        vector: (await embedder.embed([query], 'query'))[0],
        limit: 50,
      }),
      access: [...(await access.get(DEFAULT_TENANT, userId, ids)).entries()].sort(),
    };
  }
  return result;
}

async function ingestAll(engram: EngramHarness): Promise<string> {
  let position = '';
  for (const userId of USERS) {
    const turns = CONVERSATIONS[userId].map((text, i) => ({
      turnId: `${userId}-${i}`,
      text,
      occurredAt: new Date(Date.UTC(2026, 10, 1 + i, 9)).toISOString(),
    }));
    const { body } = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', turns))
      .expect(202);
    position = body.position;
  }
  // Recall once per user so access statistics exist too, then let every stage settle.
  for (const userId of USERS) {
    await engram.http().post('/v1/recall').send({ userId, query: CONVERSATIONS[userId][0], after: position }).expect(200);
  }
  await settle(engram);
  return position;
}

async function settle(engram: EngramHarness): Promise<void> {
  const { PipelineProgress } = await import('@engram/services');
  const progress = engram.app.get(PipelineProgress);
  const { EventLog } = await import('@engram/ports');
  const log = engram.app.get(EventLog);
  const { lag } = await import('@engram/ports');
  // The topic as the running deployment names it (ENGRAM_TOPIC_PREFIX).
  const accessTopic = engram.app.get(EventPublisher).topic(Topics.access);
  const attempts = engram.mode === 'embedded' ? 400 : 1200;
  for (let i = 0; i < attempts; i++) {
    const accessLag = lag(await log.endPosition(accessTopic), await log.committedPosition(accessTopic, 'access'));
    if ((await progress.pending()) === 0 && accessLag === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('pipeline did not settle');
}

/**
 * Rebuilds and restarts reproduce every projection: test/e2e runs this
 * embedded, test/infra distributed (the rebuild resets consumer groups on Kafka).
 */
export function replaySuite(mode?: EngramMode): void {
  useEngramMode(mode);

  describe(`replay and durability (${engramMode()})`, () => {
    let engram: EngramHarness;
    afterEach(async () => engram?.destroy());

    it('a rebuild from the log reproduces every projection exactly', async () => {
      engram = await startEngram();
      await ingestAll(engram);
      const before = await snapshot(engram);
      expect((before.zhou as { memories: unknown[] }).memories.length).toBeGreaterThan(2);

      await engram.stop();
      expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);
      engram = await startEngram({ dataDir: engram.dataDir });
      expect(await snapshot(engram)).toEqual(before);
    });

    it('rebuilding twice gives the same result as rebuilding once', async () => {
      engram = await startEngram();
      await ingestAll(engram);
      await engram.stop();
      await rebuildOffline(engram.dataDir);
      engram = await startEngram({ dataDir: engram.dataDir });
      const once = await snapshot(engram);
      await engram.stop();
      await rebuildOffline(engram.dataDir);
      engram = await startEngram({ dataDir: engram.dataDir });
      expect(await snapshot(engram)).toEqual(once);
    });

    it('rebuilding the projections one at a time gives what one pass of facts and search together gives', async () => {
      engram = await startEngram();
      await ingestAll(engram);
      await engram.stop();
      const together = await rebuildOffline(engram.dataDir);
      engram = await startEngram({ dataDir: engram.dataDir });
      const once = await snapshot(engram);
      await engram.stop();
      let apart = 0;
      for (const projection of ['search', 'access', 'facts', 'sessions'] as const)
        apart += await rebuildOffline(engram.dataDir, { projections: [projection] });
      engram = await startEngram({ dataDir: engram.dataDir });
      expect(await snapshot(engram)).toEqual(once);
      // Events are counted per projection either way: memory.facts.v1 once for facts, once for search.
      expect(apart).toBe(together);
    });

    it('keeps everything across a restart and carries on from where it stopped', async () => {
      engram = await startEngram();
      await ingestAll(engram);
      const before = await snapshot(engram);
      const dataDir = engram.dataDir;
      await engram.stop();

      engram = await startEngram({ dataDir });
      expect(await snapshot(engram)).toEqual(before);
      const { body } = await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody('mary', 's1', [{ turnId: 'mary-late', text: 'I prefer JetBrains Rider for C# work' }]))
        .expect(202);
      const recall = await engram.http().post('/v1/recall').send({ userId: 'mary', query: 'Rider C#', after: body.position }).expect(200);
      expect(JSON.stringify(recall.body)).toContain('Rider');
      const memories = await engram.http().get('/v1/users/mary/memories').expect(200);
      // Nothing from before the restart was applied twice.
      for (const memory of memories.body.memories as { mentionCount: number; value: string }[]) {
        if (memory.value.includes('VS Code')) expect(memory.mentionCount).toBe(1);
      }
    });
  });
}
