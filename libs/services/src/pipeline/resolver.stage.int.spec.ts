import 'reflect-metadata';
import { openSqliteDatabase, SqliteEventLog, SqliteFactStore } from '@engram/adapters-sqlite';
import { engramOptions, loadConfig } from '@engram/config';
import { EngramEvent, MemoriesExtracted, MemoryRecord, ProfileUpdateRequested, STAGES, UserForgotten } from '@engram/contracts';
import {
  extractiveSummaryWriter,
  extractTurn,
  ResolverCommand,
  ResolverDecider,
  ResolverDeciderOptions,
  ResolverEvent,
  ResolverState,
  RuleExtractor,
  ScreeningDecider,
  defaultScreeningConfig,
} from '@engram/domain';
import type { ConsumedMessage, EventLog } from '@engram/ports';
import { ChatCompletionsStub, isSummaryRequest, SUMMARY_FIXTURES } from '../../../adapters-llm/src/testing/chat-completions-stub';
import { EngramMetrics } from '../observability/metrics';
import { EntityAliases } from './entity-aliases.provider';
import { EventPublisher } from './event-publisher';
import { FactsProjection } from './facts.projection';
import { configuredInsightRules, ResolverStage } from './resolver.stage';

/**
 * The resolver stage's own part, on real embedded stores (in-memory SQLite): it reads each user's
 * memories from the fact store, hands the decider the batch's events in log order, publishes what
 * the decider returns on memory.facts.v1 and applies it to the fact store; and asks the summary
 * model, when one is configured, for the one decision that waits. What is decided is
 * resolver.decider.unit.spec.ts's.
 */
const TENANT = 'acme';
const NO_CONTEXT = { isRunning: () => true, heartbeat: async () => undefined };
const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`;
const rules = new RuleExtractor();

/** A small window, so four turns of a session make a summary. */
const SMALL_WINDOW = { ENGRAM_RECENT_TURNS: '2', ENGRAM_SUMMARY_EVERY: '2' };

function resolverOn(env: Record<string, string> = {}) {
  const options = engramOptions(loadConfig({ ...SMALL_WINDOW, ...env }));
  const db = openSqliteDatabase(':memory:');
  const eventLog = new SqliteEventLog(db);
  const store = new SqliteFactStore(db);
  const aliases = new EntityAliases(options.entityAliases);
  const publisher = new EventPublisher(eventLog, options.pipeline, new EngramMetrics());
  const stage = new ResolverStage(publisher, new FactsProjection(store), options.resolver, store, aliases);
  // What the stage should hand the decider, built here from the same configuration.
  const decider: ResolverDeciderOptions = {
    similarityThreshold: options.resolver.similarityThreshold,
    sensitiveFacts: options.resolver.sensitiveFacts,
    entityAliases: aliases.configured,
    summary: options.resolver.summary,
    insightRules: options.resolver.insights.enabled ? configuredInsightRules(options.resolver.insights) : null,
  };
  return {
    stage,
    store,
    decider,
    handle: (events: readonly EngramEvent[]) => stage.handle({ events, context: NO_CONTEXT }),
    published: () => readTopic(eventLog, publisher.topic(STAGES.resolver.output)),
    memoriesOf: (userId: string) => store.list({ tenantId: TENANT, userId }),
    close: () => db.close(),
  };
}

/** Every event on a topic, read by a throwaway consumer group. */
async function readTopic(eventLog: EventLog, topic: string): Promise<EngramEvent[]> {
  const end = (await eventLog.endPosition(topic))[0] ?? 0;
  if (end === 0) return [];
  const messages: ConsumedMessage[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subscription = await eventLog.subscribe({ topic, group: `reader-${Math.random()}` }, async (batch) => {
    messages.push(...batch);
    if (messages.length >= end) done();
  });
  await finished;
  await subscription.stop();
  return messages.map((m) => m.value as EngramEvent);
}

/** The extraction of a user's turn, as the filter and extractor stages make it. */
async function said(userId: string, text: string, turn: string, day: number): Promise<MemoriesExtracted> {
  const recorded = {
    eventId: `turn-${userId}-${turn}`,
    type: 'TurnRecorded' as const,
    schemaVersion: 1,
    tenantId: TENANT,
    userId,
    occurredAt: at(day),
    recordedAt: at(day),
    causationId: null,
    correlationId: `corr-${turn}`,
    payload: { sessionId: 's-1', turnId: turn, role: 'user' as const, text },
  };
  const [screened] = ScreeningDecider.decide(recorded, ScreeningDecider.initialState(), {
    config: defaultScreeningConfig,
    recordedAt: at(day),
  });
  const extracted = await extractTurn(screened, rules, at(day));
  if (!extracted) throw new Error(`nothing extracted from ${text}`);
  return extracted;
}

function envelope<T extends string, P>(type: T, userId: string, payload: P, day: number) {
  const eventId = `${type}-${userId}-${day}`;
  return {
    eventId,
    type,
    schemaVersion: 1,
    tenantId: TENANT,
    userId,
    occurredAt: at(day),
    recordedAt: at(day),
    causationId: null,
    correlationId: eventId,
    payload,
  };
}

const stateOf = (memories: readonly MemoryRecord[]): ResolverState => new Map(memories.map((m) => [m.memoryId, m]));

/** What the decider decides for one user's events in turn, from `state`. */
function decidedFrom(state: ResolverState, events: readonly ResolverCommand[], options: ResolverDeciderOptions): ResolverEvent[] {
  const out: ResolverEvent[] = [];
  for (const event of events) {
    const made = ResolverDecider.decide(event, state, options);
    state = made.reduce(ResolverDecider.evolve, state);
    out.push(...made);
  }
  return out;
}

const contents = (memories: readonly MemoryRecord[]) => memories.map((m) => m.content).sort();

describe('ResolverStage', () => {
  it("decides on the user's memories as the fact store holds them, then publishes and stores what the decider returns", async () => {
    const resolver = resolverOn();
    try {
      await resolver.handle([await said('u1', '我喜欢用 VS Code', 't1', 1)]);
      const stored = await resolver.memoriesOf('u1');
      const again = await said('u1', '我喜欢用 VS Code', 't2', 2);
      const expected = decidedFrom(stateOf(stored), [again], resolver.decider);
      expect(expected.map((e) => e.type)).toEqual(['MemoryReinforced', 'MemoryReinforced']);

      await resolver.handle([again]);

      const published = await resolver.published();
      expect(published.slice(-expected.length)).toEqual(expected);
      const decided = expected.flatMap((e) => (e.type === 'UserForgotten' ? [] : [e.payload.memory]));
      expect(await resolver.memoriesOf('u1')).toEqual(expect.arrayContaining(decided));
      expect((await resolver.memoriesOf('u1')).every((m) => m.mentionCount === 2)).toBe(true);
    } finally {
      resolver.close();
    }
  });

  it('hands the decider each user’s events in log order and leaves out what is not the resolver’s; a forget in the batch empties the store first', async () => {
    const resolver = resolverOn();
    try {
      const forgotten: UserForgotten = envelope('UserForgotten', 'u1', { requestedAt: at(3) }, 3);
      const profile: ProfileUpdateRequested = envelope(
        'ProfileUpdateRequested',
        'u2',
        { attributes: [{ attribute: 'employer', value: 'Stripe' }], requestedAt: at(4) },
        4,
      );
      const u1 = [await said('u1', '我喜欢用 VS Code', 't1', 1), forgotten, await said('u1', '数据库用 PostgreSQL', 't3', 4)];
      const u2 = [await said('u2', '预算控制在三万以内', 't2', 2), profile];
      const notTheResolvers = { ...envelope('MemoriesAccessed', 'u1', { memoryIds: [], accessedAt: at(5) }, 5) };
      const batch = [u1[0], u2[0], notTheResolvers, u1[1], u2[1], u1[2]] as EngramEvent[];

      await resolver.handle(batch);

      const empty = ResolverDecider.initialState();
      expect(await resolver.published()).toEqual([
        ...decidedFrom(empty, u1, resolver.decider),
        ...decidedFrom(empty, u2, resolver.decider),
      ]);
      const afterForget = contents(await resolver.memoriesOf('u1'));
      expect(afterForget).toContain('数据库用 PostgreSQL');
      expect(afterForget.filter((c) => c.includes('VS Code'))).toEqual([]);
      expect(contents(await resolver.memoriesOf('u2'))).toContain('预算控制在三万以内');
      expect((await resolver.memoriesOf('u2')).find((m) => m.mergeKey === 'user/employer')).toMatchObject({
        value: 'Stripe',
        pinned: true,
      });
    } finally {
      resolver.close();
    }
  });

  it('given a batch it already applied (redelivered), then it publishes nothing and the store stays as it was', async () => {
    const resolver = resolverOn();
    try {
      const batch = [await said('u1', '我喜欢用 VS Code', 't1', 1), await said('u1', '预算控制在三万以内', 't2', 2)];
      await resolver.handle(batch);
      const published = await resolver.published();
      const stored = await resolver.memoriesOf('u1');
      expect(published.length).toBeGreaterThan(0);

      await resolver.handle(batch);

      expect(await resolver.published()).toEqual(published);
      expect(await resolver.memoriesOf('u1')).toEqual(stored);
    } finally {
      resolver.close();
    }
  });

  it.each([
    ['pin', true],
    ['unpinned', false],
  ])('decides with the configured ENGRAM_SENSITIVE_FACTS=%s: an allergy pinned %s', async (mode, pinned) => {
    const resolver = resolverOn({ ENGRAM_SENSITIVE_FACTS: mode });
    try {
      await resolver.handle([await said('u1', '我对花生过敏', 't1', 1)]);
      const allergies = (await resolver.memoriesOf('u1')).filter((m) => m.attribute.startsWith('allergy:'));
      expect(allergies.map((m) => m.pinned)).toEqual([pinned]);
    } finally {
      resolver.close();
    }
  });

  it('decides per tenant with ENGRAM_SENSITIVE_FACTS_TENANTS: a tenant listed keeps its health facts its way, the others the default', async () => {
    const resolver = resolverOn({ ENGRAM_SENSITIVE_FACTS: 'pin', ENGRAM_SENSITIVE_FACTS_TENANTS: `${TENANT}=unpinned, clinic=off` });
    const other = resolverOn({ ENGRAM_SENSITIVE_FACTS: 'pin', ENGRAM_SENSITIVE_FACTS_TENANTS: 'clinic=off' });
    try {
      await resolver.handle([await said('u1', '我对花生过敏', 't1', 1)]);
      await other.handle([await said('u1', '我对花生过敏', 't1', 1)]);
      const allergies = async (r: typeof resolver) => (await r.memoriesOf('u1')).filter((m) => m.attribute.startsWith('allergy:'));
      expect((await allergies(resolver)).map((m) => m.pinned)).toEqual([false]);
      expect((await allergies(other)).map((m) => m.pinned)).toEqual([true]);
    } finally {
      resolver.close();
      other.close();
    }
  });

  it('refuses an ENGRAM_SENSITIVE_FACTS_TENANTS that is not tenant=mode pairs, naming it', () => {
    expect(() => resolverOn({ ENGRAM_SENSITIVE_FACTS_TENANTS: 'clinic=hidden' })).toThrow(/ENGRAM_SENSITIVE_FACTS_TENANTS/);
  });

  describe('with a summary model (ENGRAM_SUMMARIZER=llm)', () => {
    const stub = new ChatCompletionsStub();
    let url: string;
    beforeAll(async () => {
      url = await stub.start();
    });
    afterAll(() => stub.stop());

    const fourTurns = async () => [
      await said('u1', '我们在做订单服务的数据库迁移', 't1', 1),
      await said('u1', '决定用 PostgreSQL 替换 MySQL', 't2', 2),
      await said('u1', '预算控制在三万以内', 't3', 3),
      await said('u1', '我住在上海', 't4', 4),
    ];
    const summaryOf = async (resolver: ReturnType<typeof resolverOn>) =>
      (await resolver.memoriesOf('u1')).find((m) => m.kind === 'summary');

    it('asks the model for the summary that is due and stores the lines it wrote', async () => {
      stub.reset(({ body }) => (isSummaryRequest(body) ? { body: SUMMARY_FIXTURES.zh } : { status: 500, body: {} }));
      const resolver = resolverOn({ ENGRAM_SUMMARIZER: 'llm', ENGRAM_LLM_URL: url, ENGRAM_LLM_RETRIES: '0' });
      try {
        await resolver.handle(await fourTurns());
        expect(stub.requests).toHaveLength(1);
        expect(stub.requests[0].body.messages[1].content).toContain('决定用 PostgreSQL 替换 MySQL');
        expect(await summaryOf(resolver)).toMatchObject({
          content: '[11-30 08:01] 用户在做订单服务的数据库迁移，决定用 PostgreSQL 替换 MySQL。',
          sourceTurnIds: ['t1', 't2'],
        });
      } finally {
        resolver.close();
      }
    });

    it('given a model that fails, then the extractive lines stand in', async () => {
      stub.reset(() => ({ status: 500, body: { error: { message: 'down', type: 'server_error' } } }));
      const resolver = resolverOn({ ENGRAM_SUMMARIZER: 'llm', ENGRAM_LLM_URL: url, ENGRAM_LLM_RETRIES: '0' });
      try {
        const turns = await fourTurns();
        await resolver.handle(turns);
        expect(stub.requests).toHaveLength(1);
        // The extractive writer's lines for the same turns: the summary so far plus the turns that left the window.
        const before = decidedFrom(ResolverDecider.initialState(), turns.slice(0, 3), resolver.decider).reduce(
          ResolverDecider.evolve,
          ResolverDecider.initialState(),
        );
        const step = ResolverDecider.begin(turns[3], before, resolver.decider);
        if (!('summaryDue' in step)) throw new Error('expected a summary due');
        const lines = await extractiveSummaryWriter.write(step.summaryDue);
        expect(lines).toHaveLength(2);
        expect((await summaryOf(resolver))?.content).toBe(lines.join('\n'));
      } finally {
        resolver.close();
      }
    });
  });
});
