import 'reflect-metadata';
import { EngramEvent, MemoryDecision, TurnRecorded, TurnScreened, UserForgotten, deterministicId } from '@engram/contracts';
import { openSqliteDatabase, SqliteAccessStore, SqliteFactStore, SqliteSearchIndex, SqliteSessionStore } from '@engram/adapters-sqlite';
import {
  defaultScreeningConfig,
  extractTurn,
  ResolutionDecider,
  ResolverState,
  RuleExtractor,
  ScreeningDecider,
  tokenize,
} from '@engram/domain';
import { HashingEmbedder } from '@engram/embedding';
import { AccessProjection } from './access.projection';
import { FactsProjection } from './facts.projection';
import { SearchProjection } from './search.projection';
import { SessionsProjection } from './sessions.projection';

/**
 * Every projection, fed the same events once and twice (as a replay after a
 * crash would), ends in the same state: the projections are idempotent.
 */
const TENANT = 'acme';
const USER = 'u1';
const TEXTS = [
  '我叫老周，数据库用 PostgreSQL',
  '预算控制在三万以内',
  '预算提到五万了',
  'I prefer VS Code for TypeScript work',
  '我喜欢用 VS Code',
  'ok',
];

function turn(text: string, i: number): TurnRecorded {
  const eventId = deterministicId('turn', TENANT, USER, `t${i}`);
  const at = new Date(Date.UTC(2026, 10, 1 + i)).toISOString();
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
    payload: { sessionId: 's1', turnId: `t${i}`, role: 'user', text },
  };
}

async function pipelineEvents() {
  const screened: TurnScreened[] = TEXTS.flatMap((t, i) =>
    ScreeningDecider.decide(turn(t, i), ScreeningDecider.initialState(), {
      config: defaultScreeningConfig,
      recordedAt: turn(t, i).recordedAt,
    }),
  );
  const extractor = new RuleExtractor();
  let state: ResolverState = ResolutionDecider.initialState();
  const decisions: MemoryDecision[] = [];
  for (const event of screened) {
    const extracted = await extractTurn(event, extractor, event.recordedAt);
    if (!extracted) continue;
    const made = ResolutionDecider.decide(extracted, state, { similarityThreshold: 0.85, recordedAt: extracted.recordedAt });
    state = made.reduce(ResolutionDecider.evolve, state);
    decisions.push(...made);
  }
  const accessed: EngramEvent = {
    eventId: 'access-1',
    type: 'MemoriesAccessed',
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: '2026-11-30T00:00:00.000Z',
    recordedAt: '2026-11-30T00:00:00.000Z',
    causationId: null,
    correlationId: 'access-1',
    payload: { memoryIds: decisions.slice(0, 2).map((d) => d.payload.memory.memoryId), accessedAt: '2026-11-30T00:00:00.000Z' },
  };
  return { screened, decisions, accessed };
}

function projections() {
  const db = openSqliteDatabase(':memory:');
  const facts = new SqliteFactStore(db);
  const sessions = new SqliteSessionStore(db);
  const search = new SqliteSearchIndex(db);
  const access = new SqliteAccessStore(db);
  return {
    db,
    facts: new FactsProjection(facts),
    sessions: new SessionsProjection(sessions),
    search: new SearchProjection(search, new HashingEmbedder(64)),
    access: new AccessProjection(access),
    async state() {
      const memories = await facts.list({ tenantId: TENANT, userId: USER });
      const ids = memories.map((m) => m.memoryId);
      return {
        memories,
        sessions: await sessions.recent(TENANT, USER, 's1', 100),
        revisions: [...(await search.revisions(TENANT, USER, ids)).entries()].sort(),
        text: await search.searchText({ tenantId: TENANT, userId: USER, terms: tokenize(TEXTS.join(' ')), limit: 50 }),
        access: [...(await access.get(TENANT, USER, ids)).entries()].sort(),
      };
    },
  };
}

describe('projections applied twice', () => {
  it('end in the same state as applied once', async () => {
    const { screened, decisions, accessed } = await pipelineEvents();
    expect(decisions.length).toBeGreaterThan(3);

    const once = projections();
    await once.facts.apply(decisions);
    await once.search.apply(decisions);
    await once.sessions.apply(screened);
    await once.access.apply([accessed]);

    const twice = projections();
    for (let round = 0; round < 2; round++) {
      await twice.facts.apply(decisions);
      await twice.search.apply(decisions);
      await twice.sessions.apply(screened);
      await twice.access.apply([accessed]);
    }
    const expected = await once.state();
    expect(expected.memories.length).toBeGreaterThan(2);
    expect(await twice.state()).toEqual(expected);
  });

  it('ignore an older decision replayed after a newer one', async () => {
    const { decisions } = await pipelineEvents();
    const p = projections();
    await p.facts.apply(decisions);
    await p.search.apply(decisions);
    const before = await p.state();
    await p.facts.apply([...decisions].reverse());
    await p.search.apply([...decisions].reverse());
    expect(await p.state()).toEqual(before);
    const budget = before.memories.find((m) => m.attribute === 'budget');
    expect(budget?.value).toContain('五万');
    expect(budget?.history.map((h) => h.value).join()).toContain('三万');
  });

  it('build the search index from the facts as from every decision (a rebuild: `Rebuilder`)', async () => {
    const { decisions } = await pipelineEvents();
    // A memory decided more than once: the index fed decision by decision replaces its document.
    expect(decisions.some((d) => d.payload.memory.revision > 1)).toBe(true);
    const live = projections();
    for (const decision of decisions) {
      await live.facts.apply([decision]);
      await live.search.apply([decision]);
    }
    const rebuilt = projections();
    await rebuilt.facts.apply(decisions);
    const pages: number[] = [];
    for await (const { memories } of rebuilt.facts.memories(2)) {
      pages.push(memories.length);
      await rebuilt.search.indexMemories(memories);
    }
    // One user: one page, whatever the page size, of every memory once.
    expect(pages).toEqual([new Set(decisions.map((d) => d.payload.memory.memoryId)).size]);
    const expected = await live.state();
    expect(expected.text.length).toBeGreaterThan(2);
    expect(expected.revisions.some(([, revision]) => revision > 1)).toBe(true);
    expect(await rebuilt.state()).toEqual(expected);
  });

  it('forget a user at the point of UserForgotten, keeping what came after', async () => {
    const { decisions } = await pipelineEvents();
    const forgotten: UserForgotten = {
      eventId: 'forget-1',
      type: 'UserForgotten',
      schemaVersion: 1,
      tenantId: TENANT,
      userId: USER,
      occurredAt: '2026-11-30T00:00:00.000Z',
      recordedAt: '2026-11-30T00:00:00.000Z',
      causationId: null,
      correlationId: 'forget-1',
      payload: { requestedAt: '2026-11-30T00:00:00.000Z' },
    };
    const p = projections();
    const [last] = decisions.slice(-1);
    await p.facts.apply([...decisions, forgotten, last]);
    const { memories } = await p.state();
    expect(memories.map((m) => m.memoryId)).toEqual([last.payload.memory.memoryId]);
  });
});
