import 'reflect-metadata';
import { BadRequestException } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import {
  openSqliteDatabase,
  SqliteAccessStore,
  SqliteEventLog,
  SqliteFactStore,
  SqliteSearchIndex,
  SqliteSessionStore,
} from '@engram/adapters-sqlite';
import { EngramConfig, engramOptions } from '@engram/config';
import { deterministicId, MemoriesAccessed, MemoryDecision, Topics, TurnRecorded, TurnScreened } from '@engram/contracts';
import { defaultScreeningConfig, extractTurn, ResolutionDecider, ResolverState, RuleExtractor, ScreeningDecider } from '@engram/domain';
import { HashingEmbedder, OpenAiCompatibleEmbedder } from '@engram/embedding';
import { type Clock, DependencyUnavailableError, type Embedder } from '@engram/ports';
import { JsonHttpStub } from '@engram/testing';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { EngramMetrics } from '../observability/metrics';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { EventPublisher } from '../pipeline/event-publisher';
import { FactsProjection } from '../pipeline/facts.projection';
import { encodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import { SearchProjection } from '../pipeline/search.projection';
import { SessionsProjection } from '../pipeline/sessions.projection';
import { consumeUpTo } from '../transport/consume-up-to';
import { RecallAudit } from './recall-audit';
import { RecallService } from './recall.service';

/**
 * RecallService's own part, the I/O around the recall pipeline: what it reads from the index, the
 * fact store and the session store, and what it writes (the access event). Real SQLite stores in
 * memory, filled by the real projections from the events the real screening, extraction and
 * resolution make of a few turns; the ranking itself is the domain's (recall-pipeline.unit.spec.ts).
 */
const TENANT = 'acme';
const USER = 'laozhou';
const NOW = '2026-12-01T00:00:00.000Z';

const TURNS = [
  { session: 's1', text: '我叫老周，我们的数据库用 PostgreSQL', at: '2026-11-02T09:00:00.000Z' },
  { session: 's1', text: '预算控制在三万以内', at: '2026-11-02T09:01:00.000Z' },
  { session: 's2', text: 'I prefer VS Code for TypeScript work', at: '2026-11-10T09:00:00.000Z' },
  { session: 's2', text: '预算提到五万了', at: '2026-11-10T09:01:00.000Z' },
];

function turn({ session, text, at }: (typeof TURNS)[number], i: number): TurnRecorded {
  const eventId = deterministicId('turn', TENANT, USER, `t${i}`);
  return {
    eventId,
    type: 'TurnRecorded',
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: at,
    recordedAt: at,
    causationId: null,
    correlationId: eventId,
    payload: { sessionId: session, turnId: `t${i}`, role: 'user', text },
  };
}

/**
 * `recallEmbedder`: what recall embeds the question with (the index is always built with the
 * hashing embedder); `config`: variables set on the configuration.
 */
async function engram(setup: { recallEmbedder?: Embedder; config?: Partial<EngramConfig> } = {}) {
  const db = openSqliteDatabase(':memory:');
  const options = engramOptions(Object.assign(new EngramConfig(), setup.config));
  const log = new SqliteEventLog(db, { lingerMs: 0, pollIntervalMs: 5 });
  const facts = new SqliteFactStore(db);
  const sessions = new SqliteSessionStore(db);
  const search = new SqliteSearchIndex(db);
  const embedder = new HashingEmbedder();
  const aliases = new EntityAliases(options.entityAliases);
  const publisher = new EventPublisher(log, options.pipeline, new EngramMetrics());
  const clock: Clock = { now: () => new Date(NOW) };
  const dependencies = new DependencyMonitor(options.dependencies, new EngramMetrics());
  const service = new RecallService(
    options.recall,
    options.consistency,
    aliases,
    new PipelineProgress(log, publisher),
    publisher,
    facts,
    search,
    sessions,
    setup.recallEmbedder ?? embedder,
    clock,
    new SqliteAccessStore(db),
    new RecallAudit(options.recall),
    dependencies,
  );

  // The pipeline's own stages, without the log: screen, extract, resolve, then project.
  const screened: TurnScreened[] = TURNS.map(turn).flatMap((recorded) =>
    ScreeningDecider.decide(recorded, ScreeningDecider.initialState(), { config: defaultScreeningConfig, recordedAt: recorded.recordedAt }),
  );
  let state: ResolverState = ResolutionDecider.initialState();
  const decisions: MemoryDecision[] = [];
  for (const event of screened) {
    const extracted = await extractTurn(event, new RuleExtractor(), event.recordedAt);
    if (!extracted) continue;
    const made = ResolutionDecider.decide(extracted, state, { similarityThreshold: 0.85, recordedAt: extracted.recordedAt });
    state = made.reduce(ResolutionDecider.evolve, state);
    decisions.push(...made);
  }
  await new FactsProjection(facts).apply(decisions);
  await new SearchProjection(search, embedder, aliases).apply(decisions);
  await new SessionsProjection(sessions).apply(screened);

  const accessTopic = publisher.topic(Topics.access);
  return {
    service,
    dependencies,
    facts,
    search,
    /** Every access event recall wrote, once `count` of them are in the log (it publishes without waiting). */
    async accessEvents(count: number): Promise<MemoriesAccessed[]> {
      const deadline = Date.now() + 10_000;
      while (Object.values(await log.endPosition(accessTopic)).reduce((sum, n) => sum + n, 0) < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const events: MemoriesAccessed[] = [];
      await consumeUpTo(log, accessTopic, `spec-${Math.random()}`, await log.endPosition(accessTopic), async (messages) => {
        events.push(...messages.map((message) => message.value as MemoriesAccessed));
      });
      return events;
    },
    close: () => log.close(),
  };
}

describe('RecallService', () => {
  let e: Awaited<ReturnType<typeof engram>>;
  beforeEach(async () => {
    e = await engram();
  });
  afterEach(() => e.close());

  it("answers from today's index and stores: the pinned name, the ranked memories, the session's recent turns", async () => {
    const answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', sessionId: 's1', now: NOW });
    expect(answer.facts.map((fact) => fact.value)).toEqual(['老周']);
    expect(answer.memories[0].content).toContain('PostgreSQL');
    expect(answer.recent.map((t) => t.text)).toEqual([TURNS[0].text, TURNS[1].text]);
    expect(answer.consistent).toBe(true);
    expect(answer.context).toContain('PostgreSQL');
  });

  it('records what it returned as one MemoriesAccessed event, at the instant asked for', async () => {
    const answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
    const [event, ...more] = await e.accessEvents(1);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: 'MemoriesAccessed', tenantId: TENANT, userId: USER, payload: { accessedAt: NOW } });
    expect(event.payload.memoryIds).toEqual([...answer.facts.map((f) => f.id), ...answer.memories.map((m) => m.id)]);
  });

  it('does not return a memory the store retracted while the index still finds it (the index may lag)', async () => {
    const before = await e.service.recall(TENANT, { userId: USER, query: 'which editor do I prefer', now: NOW });
    const editor = before.memories.find((m) => m.content.includes('VS Code'))!;
    expect(editor).toBeDefined();
    const [stored] = await e.facts.get(TENANT, USER, [editor.id]);
    await e.facts.save([{ ...stored, status: 'retracted', revision: stored.revision + 1 }]);

    const hits = await e.search.searchText({ tenantId: TENANT, userId: USER, terms: ['vs', 'code'], limit: 10 });
    expect(hits.map((hit) => hit.memoryId)).toContain(editor.id);
    const after = await e.service.recall(TENANT, { userId: USER, query: 'which editor do I prefer', now: NOW });
    expect(after.memories.map((m) => m.id)).not.toContain(editor.id);
  });

  it("looks into the past in the fact store's history, not the index, and records no access for it", async () => {
    const then = await e.service.recall(TENANT, { userId: USER, query: '预算是多少', asOf: '2026-11-05T00:00:00.000Z' });
    expect(then.memories[0].content).toBe('预算控制在三万以内');
    const today = await e.service.recall(TENANT, { userId: USER, query: '预算是多少', now: NOW });
    expect(today.memories[0].content).toBe('预算提到五万了');
    // Only today's recall was a use.
    const events = await e.accessEvents(1);
    expect(events).toHaveLength(1);
    expect(events[0].payload.memoryIds).toContain(today.memories[0].id);
  });

  it('narrows to the sessions asked for, through the turn ids the session store holds for them', async () => {
    const everywhere = await e.service.recall(TENANT, { userId: USER, query: '预算 数据库 VS Code', now: NOW, k: 10 });
    expect(everywhere.memories.some((m) => m.sourceTurnIds.includes('t0'))).toBe(true);
    const inS2 = await e.service.recall(TENANT, { userId: USER, query: '预算 数据库 VS Code', now: NOW, k: 10, sessions: ['s2'] });
    expect(inS2.memories.length).toBeGreaterThan(0);
    for (const memory of inS2.memories) expect(memory.sourceTurnIds.every((id) => id === 't2' || id === 't3')).toBe(true);
  });

  it('refuses an `after` the log never issued, and a window whose `to` is not after `from`, naming the field', async () => {
    const refusal = (request: Promise<unknown>) =>
      request.then(
        () => null,
        (error: unknown) => (error instanceof BadRequestException ? (error.getResponse() as { fields: string[] }).fields : error),
      );
    expect(await refusal(e.service.recall(TENANT, { userId: USER, query: 'x', after: encodePosition({ 0: 99 }) }))).toEqual(['after']);
    expect(
      await refusal(e.service.recall(TENANT, { userId: USER, query: 'x', from: '2026-11-10T00:00:00Z', to: '2026-11-01T00:00:00Z' })),
    ).toEqual(['to']);
  });

  it('answers a complete recall without a `degraded` field', async () => {
    const answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
    expect(answer.memories.length).toBeGreaterThan(0);
    expect(answer).not.toHaveProperty('degraded');
  });
});

/** A loopback port nothing listens on: a connection to it is refused, as to an embedder that is down. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** The endpoint embedder as configured (ENGRAM_EMBEDDINGS_*), at `url`, with the hashing embedder's vector length. */
const endpointEmbedder = (url: string) => new OpenAiCompatibleEmbedder({ url, model: 'stub', dimensions: 256, backoffMs: 1 });

describe('RecallService with the embedder unavailable', () => {
  let e: Awaited<ReturnType<typeof engram>>;
  afterEach(() => e.close());

  it('answers from BM25 alone and says so: `degraded: ["embedder"]`', async () => {
    e = await engram({ recallEmbedder: endpointEmbedder(await closedPort()) });
    const answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
    expect(answer.degraded).toEqual(['embedder']);
    expect(answer.memories[0].content).toContain('PostgreSQL');
    expect(answer.facts.map((fact) => fact.value)).toEqual(['老周']);
  });

  it('looks into the past with BM25 alone, and says so', async () => {
    e = await engram({ recallEmbedder: endpointEmbedder(await closedPort()) });
    const then = await e.service.recall(TENANT, { userId: USER, query: '预算是多少', asOf: '2026-11-05T00:00:00.000Z' });
    expect(then.degraded).toEqual(['embedder']);
    expect(then.memories[0].content).toBe('预算控制在三万以内');
  });

  it('given ENGRAM_RECALL_LEGS=knn, then it cannot answer: a DependencyUnavailableError naming the embedder', async () => {
    e = await engram({ recallEmbedder: endpointEmbedder(await closedPort()), config: { ENGRAM_RECALL_LEGS: 'knn' } });
    const failure = e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
    await expect(failure).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(failure).rejects.toMatchObject({ dependency: 'embedder' });
  });

  describe('against an embedder answering 503', () => {
    const hashing = new HashingEmbedder();
    let up = false;
    const stub = new JsonHttpStub<{ input: string[] }>(({ body }) =>
      up
        ? { body: { data: body.input.map((text, index) => ({ index, embedding: hashing.embedOne(text) })) } }
        : { status: 503, body: { error: { message: 'model loading' } } },
    );
    let url: string;
    beforeAll(async () => {
      url = await stub.start();
    });
    afterAll(() => stub.stop());
    beforeEach(() => {
      up = false;
      stub.reset();
    });

    it('asks it once per recall, briefly, and not again while it is known to be down', async () => {
      e = await engram({ recallEmbedder: endpointEmbedder(url), config: { ENGRAM_DEPENDENCY_RECHECK_MS: 600_000 } });
      const first = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
      // One attempt: recall does not wait out the embedder's retries.
      expect(stub.requests).toHaveLength(1);
      expect(e.dependencies.down()).toEqual(['embedder']);
      const second = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
      expect(stub.requests).toHaveLength(1);
      expect([first.degraded, second.degraded]).toEqual([['embedder'], ['embedder']]);
      expect(second.memories[0].content).toContain('PostgreSQL');
    });

    it('notices by itself that it is back, and answers completely again', async () => {
      e = await engram({ recallEmbedder: endpointEmbedder(url), config: { ENGRAM_DEPENDENCY_RECHECK_MS: 100 } });
      expect((await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW })).degraded).toEqual(['embedder']);
      up = true;
      const deadline = Date.now() + 10_000;
      let answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
      while (answer.degraded && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await e.service.recall(TENANT, { userId: USER, query: '数据库用什么', now: NOW });
      }
      expect(answer).not.toHaveProperty('degraded');
      expect(e.dependencies.down()).toEqual([]);
    });
  });
});
