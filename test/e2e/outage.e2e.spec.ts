import { eventually } from '@engram/testing';
import { EmbeddingsStub } from '../support/embeddings-stub';
import { EngramHarness, startEngram, type TurnInput, turnsBody } from '../support/engram-harness';

/**
 * The embedder goes away and comes back under a running embedded engram (issue 31, point 5): a
 * real server on SQLite, an OpenAI-compatible embeddings endpoint on 127.0.0.1 that stops
 * listening (connections refused) and starts again on the same port. Nothing acknowledged is lost
 * or applied twice, the indexer waits and resumes by itself, recall answers from BM25 meanwhile and
 * says so, status and readiness tell the truth, and nothing is dead-lettered for the outage.
 * Every wait polls with a deadline; nothing asserts how long anything took.
 */
interface Memory {
  id: string;
  kind: string;
  content: string;
  sourceTurnIds: string[];
  status: string;
}
interface Recalled {
  memories: Memory[];
  facts: Memory[];
  consistent: boolean;
  degraded?: string[];
}

/** Quick to notice, quick to come back: the outage is the test's, not the backoff's. */
const OUTAGE_SETTINGS = {
  ENGRAM_EMBEDDINGS_RETRIES: '0',
  ENGRAM_EMBEDDINGS_TIMEOUT_MS: '2000',
  ENGRAM_STAGE_PAUSE_MS: '20',
  ENGRAM_STAGE_PAUSE_MAX_MS: '200',
  ENGRAM_DEPENDENCY_RECHECK_MS: '200',
};

const BEFORE: TurnInput[] = [
  { turnId: 'b1', text: '我们的数据库用 PostgreSQL' },
  { turnId: 'b2', text: 'I prefer green tea in the morning' },
];
const DURING: TurnInput[] = [
  { turnId: 'd1', text: 'I drive a Volvo to the office' },
  { turnId: 'd2', text: '我们的缓存用 Redis' },
  { turnId: 'd3', text: 'My daughter plays the cello' },
];

describe('an embedder outage (embedded)', () => {
  const embedder = new EmbeddingsStub();
  let engram: EngramHarness;

  beforeEach(async () => {
    const url = await embedder.up();
    engram = await startEngram({ env: { ...embedder.env(url), ...OUTAGE_SETTINGS } });
  });
  afterEach(async () => {
    await engram?.destroy();
    await embedder.down();
  });

  const say = async (userId: string, turns: TurnInput[]): Promise<string> =>
    (
      await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, 's1', turns))
        .expect(202)
    ).body.position;
  const recall = async (body: Record<string, unknown>): Promise<Recalled> =>
    (await engram.http().post('/v1/recall').send(body).expect(200)).body;
  const status = async () => (await engram.http().get('/v1/pipeline/status').expect(200)).body;
  const memoriesOf = async (userId: string): Promise<Memory[]> =>
    (await engram.http().get(`/v1/users/${userId}/memories`).expect(200)).body.memories;

  it('loses nothing, doubles nothing, and resumes by itself; recall answers from BM25 meanwhile and says so', async () => {
    const before = await say('u1', BEFORE);
    const complete = await recall({ userId: 'u1', query: 'which database do we use PostgreSQL', after: before });
    expect(complete).toMatchObject({ consistent: true });
    expect(complete).not.toHaveProperty('degraded');
    expect(complete.memories.map((m) => m.content).join('\n')).toContain('PostgreSQL');
    expect((await engram.http().get('/health/ready').expect(200)).body).toMatchObject({ status: 'ready', down: [], pending: 0 });

    await embedder.down();
    const during = await say('u1', DURING);
    await say('u2', [{ turnId: 'x1', text: 'I prefer oolong tea' }]);

    // The indexer meets the refused connection and waits: what it could not index is pending, not dead-lettered.
    await eventually(async () => {
      const now = await status();
      return now.down.includes('embedder') && now.stages.some((s: { group: string; pausedOn?: string }) => s.pausedOn === 'embedder');
    }, 'the status to say the embedder is down and the indexer paused on it');
    const outage = await status();
    expect(outage.pending).toBeGreaterThan(0);
    expect(outage.deadLetters).toBe(0);
    expect(outage.dependencies).toEqual([expect.objectContaining({ name: 'embedder', state: 'down', since: expect.any(String) })]);
    const indexer = outage.stages.find((s: { group: string }) => s.group === 'indexer');
    expect(indexer).toMatchObject({ pausedOn: 'embedder' });
    expect(indexer.lag).toBeGreaterThan(0);
    // Still serving, so still ready: degraded, saying what is down and what waits.
    const ready = (await engram.http().get('/health/ready').expect(200)).body;
    expect(ready).toMatchObject({ status: 'degraded', down: ['embedder'], deadLetters: 0 });
    expect(ready.pending).toBeGreaterThan(0);
    expect(ready.paused).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'indexer', dependency: 'embedder' })]));
    const metrics = (await engram.http().get('/metrics').expect(200)).text;
    expect(metrics).toContain('engram_dependency_up{dependency="embedder"} 0');
    expect(metrics).toContain('engram_stage_paused{stage="indexer"} 1');

    // Recall answers — what was indexed before the outage, by BM25 — and says what it did without.
    const degraded = await recall({ userId: 'u1', query: 'which database do we use PostgreSQL' });
    expect(degraded.degraded).toEqual(['embedder']);
    expect(degraded.memories.map((m) => m.content).join('\n')).toContain('PostgreSQL');
    // A read-your-writes recall cannot be consistent while the indexer waits: it answers at once, saying so.
    const waited = await recall({ userId: 'u1', query: 'what car do I drive Volvo', after: during });
    expect(waited).toMatchObject({ consistent: false, degraded: ['embedder'] });

    // Everything said during the outage is stored (the fact store does not need the embedder).
    await eventually(async () => episodesOf(await memoriesOf('u1'), DURING).length === DURING.length, "the outage's turns stored");

    await embedder.up();
    await eventually(async () => {
      const now = await status();
      return now.pending === 0 && now.down.length === 0;
    }, 'the indexer to catch up by itself once the embedder is back');

    const after = await status();
    expect(after).toMatchObject({ pending: 0, deadLetters: 0, down: [] });
    expect(after.stages.every((s: { pausedOn?: string }) => s.pausedOn === undefined)).toBe(true);
    expect((await engram.http().get('/health/ready').expect(200)).body).toMatchObject({ status: 'ready', down: [], paused: [] });

    // Each turn of the outage is now recalled, as itself and once.
    const found = await recall({ userId: 'u1', query: 'what car do I drive Volvo', after: during, k: 20 });
    expect(found).toMatchObject({ consistent: true });
    expect(found).not.toHaveProperty('degraded');
    expect(found.memories.map((m) => m.content).join('\n')).toContain('Volvo');
    const ids = [...found.facts, ...found.memories].map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = await memoriesOf('u1');
    for (const turn of [...BEFORE, ...DURING]) {
      expect(episodesOf(stored, [turn]).map((m) => m.sourceTurnIds)).toEqual([[turn.turnId]]);
    }
    expect(episodesOf(await memoriesOf('u2'), [{ turnId: 'x1', text: '' }])).toHaveLength(1);

    // Nothing was dead-lettered for the outage, on any topic.
    const letters = (await engram.http().get('/v1/admin/dead-letters').expect(200)).body;
    expect(letters.topics.map((t: { count: number }) => t.count)).toEqual(letters.topics.map(() => 0));
    const recovered = (await engram.http().get('/metrics').expect(200)).text;
    expect(recovered).toContain('engram_dependency_up{dependency="embedder"} 1');
    expect(recovered).toContain('engram_stage_paused{stage="indexer"} 0');
    expect(recovered).not.toMatch(/^engram_dlq_events_total\{/m);
  });
});

describe('an embedder outage, when recall cannot do without it (ENGRAM_RECALL_LEGS=knn)', () => {
  const embedder = new EmbeddingsStub();
  let engram: EngramHarness;

  afterEach(async () => {
    await engram?.destroy();
    await embedder.down();
  });

  it('answers 503 naming the embedder, with Retry-After, and answers again once it is back', async () => {
    const url = await embedder.up();
    engram = await startEngram({ env: { ...embedder.env(url), ...OUTAGE_SETTINGS, ENGRAM_RECALL_LEGS: 'knn' } });
    await embedder.down();
    const refused = await engram.http().post('/v1/recall').send({ userId: 'u1', query: 'anything' }).expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: ['the embedder (ENGRAM_EMBEDDINGS_URL) is unavailable; retry later'],
      fields: [],
    });
    await embedder.up();
    await eventually(
      async () => (await engram.http().post('/v1/recall').send({ userId: 'u1', query: 'anything' })).status === 200,
      'recall to answer again',
    );
  });
});

/** The episodes (a turn kept as said) of the given turns, active. */
function episodesOf(memories: readonly Memory[], turns: readonly TurnInput[]): Memory[] {
  const ids = new Set(turns.map((t) => t.turnId));
  return memories.filter((m) => m.kind === 'episode' && m.status === 'active' && m.sourceTurnIds.some((id) => ids.has(id)));
}
