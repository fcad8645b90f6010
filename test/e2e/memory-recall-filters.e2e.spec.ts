import { EngramHarness, startEngram, TestClock, TurnInput, turnsBody } from '../support/engram-harness';

interface Recalled {
  facts: { kind: string; content: string }[];
  memories: { kind: string; content: string }[];
}

/** Recall the application can steer (issue 11 §5): kinds, sessions, a time window, and validAt beside asOf. */
describe('recall filters and validAt (HTTP)', () => {
  let engram: EngramHarness;
  let clock: TestClock;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-12-20T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterEach(async () => engram.destroy());

  async function say(userId: string, sessionId: string, turns: TurnInput[]) {
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    await engram.http().post('/v1/recall').send({ userId, query: 'x', after: response.body.position }).expect(200);
  }

  async function recall(body: Record<string, unknown>): Promise<Recalled> {
    return (await engram.http().post('/v1/recall').send(body).expect(200)).body;
  }

  const contents = (r: Recalled) => [...r.facts, ...r.memories].map((m) => m.content);

  describe('kinds', () => {
    it('returns only the kinds asked for (Chinese)', async () => {
      await say('laozhou', 's1', [
        { turnId: 't1', text: '我叫老周' },
        { turnId: 't2', text: '我喜欢喝美式咖啡' },
        { turnId: 't3', text: '我们的数据库用 PostgreSQL' },
      ]);
      const all = await recall({ userId: 'laozhou', query: '咖啡 数据库 PostgreSQL' });
      expect(new Set(all.memories.map((m) => m.kind)).size).toBeGreaterThan(1);
      expect(all.facts.map((f) => f.content)).toEqual(['我叫老周']);

      const preferences = await recall({ userId: 'laozhou', query: '咖啡 数据库 PostgreSQL', kinds: ['preference'] });
      expect(preferences.memories.length).toBeGreaterThan(0);
      expect(preferences.memories.every((m) => m.kind === 'preference')).toBe(true);
      expect(contents(preferences).some((c) => c.includes('美式咖啡'))).toBe(true);
      expect(preferences.facts).toEqual([]); // the pinned name is a profile fact, not a preference

      const episodes = await recall({ userId: 'laozhou', query: '咖啡 数据库 PostgreSQL', kinds: ['episode', 'profile'] });
      expect(episodes.memories.length).toBeGreaterThan(0);
      expect(episodes.memories.every((m) => m.kind === 'episode')).toBe(true);
      expect(episodes.facts.map((f) => f.content)).toEqual(['我叫老周']);
    });

    it('returns only the kinds asked for (English)', async () => {
      await say('sam', 's1', [
        { turnId: 't1', text: 'I prefer dark roast coffee' },
        { turnId: 't2', text: 'We use PostgreSQL as our database' },
      ]);
      const facts = await recall({ userId: 'sam', query: 'coffee database PostgreSQL', kinds: ['fact'] });
      expect(facts.memories.length).toBeGreaterThan(0);
      expect(facts.memories.every((m) => m.kind === 'fact')).toBe(true);
      expect(contents(facts).some((c) => c.includes('PostgreSQL'))).toBe(true);
      expect(contents(facts).some((c) => c.includes('coffee'))).toBe(false);
    });

    it('rejects kinds that are not memory kinds with 400 naming the field', async () => {
      for (const kinds of [['nonsense'], [], 'preference', ['preference', 7]]) {
        const response = await engram.http().post('/v1/recall').send({ userId: 'sam', query: 'x', kinds }).expect(400);
        expect(response.body.fields).toEqual(['kinds']);
      }
    });
  });

  describe('sessions', () => {
    it("returns only what was said in the sessions asked for, and never another user's (Chinese)", async () => {
      await say('laozhou', 's1', [{ turnId: 't1', text: '我喜欢周末去爬山' }]);
      await say('laozhou', 's2', [{ turnId: 't2', text: '我喜欢周末去游泳' }]);
      await say('xiaoli', 's3', [{ turnId: 't3', text: '我喜欢周末去滑雪' }]);
      const both = contents(await recall({ userId: 'laozhou', query: '我周末喜欢做什么' }));
      expect(both.some((c) => c.includes('爬山')) && both.some((c) => c.includes('游泳'))).toBe(true);

      const second = contents(await recall({ userId: 'laozhou', query: '我周末喜欢做什么', sessions: ['s2'] }));
      expect(second.some((c) => c.includes('游泳'))).toBe(true);
      expect(second.some((c) => c.includes('爬山'))).toBe(false);
      // Another user's session id holds nothing of laozhou's.
      expect(contents(await recall({ userId: 'laozhou', query: '我周末喜欢做什么', sessions: ['s3'] }))).toEqual([]);
    });

    it('returns only what was said in the sessions asked for (English), and validates the ids', async () => {
      await say('sam', 'monday', [{ turnId: 't1', text: 'I am working on the billing migration' }]);
      await say('sam', 'friday', [{ turnId: 't2', text: 'I am working on the search rewrite' }]);
      const friday = contents(await recall({ userId: 'sam', query: 'what am I working on', sessions: ['friday'] }));
      expect(friday.some((c) => c.includes('search rewrite'))).toBe(true);
      expect(friday.some((c) => c.includes('billing'))).toBe(false);

      for (const sessions of [[''], [], 'friday', ['a b']]) {
        const response = await engram.http().post('/v1/recall').send({ userId: 'sam', query: 'x', sessions }).expect(400);
        expect(response.body.fields).toEqual(['sessions']);
      }
    });
  });

  describe('from / to', () => {
    it('returns only what was said in the window (Chinese and English)', async () => {
      await say('mei', 's1', [
        { turnId: 't1', text: '我喜欢吃川菜', occurredAt: '2026-10-01T08:00:00Z' },
        { turnId: 't2', text: 'I love Thai food', occurredAt: '2026-10-03T08:00:00Z' },
        { turnId: 't3', text: '我喜欢吃粤菜', occurredAt: '2026-10-10T08:00:00Z' },
      ]);
      const window = contents(
        await recall({ userId: 'mei', query: '我喜欢吃什么 food', from: '2026-10-02T00:00:00Z', to: '2026-10-11T00:00:00Z' }),
      );
      expect(window.some((c) => c.includes('Thai'))).toBe(true);
      expect(window.some((c) => c.includes('粤菜'))).toBe(true);
      expect(window.some((c) => c.includes('川菜'))).toBe(false);

      const before = contents(await recall({ userId: 'mei', query: '我喜欢吃什么 food', to: '2026-10-03T08:00:00Z' }));
      expect(before.some((c) => c.includes('川菜'))).toBe(true);
      expect(before.some((c) => c.includes('Thai') || c.includes('粤菜'))).toBe(false);
    });

    it('rejects a window that ends before it starts, or an instant that is not ISO, naming the field', async () => {
      const backwards = await engram
        .http()
        .post('/v1/recall')
        .send({ userId: 'mei', query: 'x', from: '2026-10-05T00:00:00Z', to: '2026-10-01T00:00:00Z' })
        .expect(400);
      expect(backwards.body.fields).toEqual(['to']);
      const words = await engram.http().post('/v1/recall').send({ userId: 'mei', query: 'x', from: 'last week' }).expect(400);
      expect(words.body.fields).toEqual(['from']);
    });
  });

  describe('validAt', () => {
    it('answers what the budget was on 3 October from logs backfilled today (Chinese)', async () => {
      // Both turns arrive today (Dec 20): asOf cannot tell them apart, the conversation's own times can.
      await say('laozhou', 's1', [
        { turnId: 't1', text: '预算控制在三万以内', occurredAt: '2026-10-01T08:00:00Z' },
        { turnId: 't2', text: '预算提到五万了', occurredAt: '2026-10-10T08:00:00Z' },
      ]);
      const onThird = contents(await recall({ userId: 'laozhou', query: '预算是多少', validAt: '2026-10-03T00:00:00Z' }));
      expect(onThird.some((c) => c.includes('三万'))).toBe(true);
      expect(onThird.some((c) => c.includes('五万'))).toBe(false);

      const later = contents(await recall({ userId: 'laozhou', query: '预算是多少', validAt: '2026-10-12T00:00:00Z' }));
      expect(later.some((c) => c.includes('五万'))).toBe(true);
      expect(later.some((c) => c.includes('三万'))).toBe(false);

      const beforeAnything = contents(await recall({ userId: 'laozhou', query: '预算是多少', validAt: '2026-09-30T00:00:00Z' }));
      expect(beforeAnything.some((c) => c.includes('万'))).toBe(false);

      // asOf on 3 October: engram had heard nothing yet. Today, only the current value.
      expect(contents(await recall({ userId: 'laozhou', query: '预算是多少', asOf: '2026-10-03T00:00:00Z' }))).toEqual([]);
      const today = contents(await recall({ userId: 'laozhou', query: '预算是多少' }));
      expect(today.some((c) => c.includes('五万')) && !today.some((c) => c.includes('三万'))).toBe(true);
    });

    it('answers what the budget was on 3 October from logs backfilled today (English)', async () => {
      await say('sam', 's1', [
        { turnId: 't1', text: 'The budget is 30k', occurredAt: '2026-10-01T08:00:00Z' },
        { turnId: 't2', text: 'Actually the budget is 50k now', occurredAt: '2026-10-10T08:00:00Z' },
      ]);
      const onThird = contents(await recall({ userId: 'sam', query: 'what was the budget', validAt: '2026-10-03T00:00:00Z' }));
      expect(onThird.some((c) => c.includes('30k'))).toBe(true);
      expect(onThird.some((c) => c.includes('50k'))).toBe(false);
      // Filters apply to the past too.
      const episodes = await recall({ userId: 'sam', query: 'what was the budget', validAt: '2026-10-03T00:00:00Z', kinds: ['episode'] });
      expect(episodes.memories.every((m) => m.kind === 'episode')).toBe(true);
    });

    it('rejects a validAt that is not an ISO instant', async () => {
      const response = await engram.http().post('/v1/recall').send({ userId: 'sam', query: 'x', validAt: '3 October' }).expect(400);
      expect(response.body.fields).toEqual(['validAt']);
    });
  });
});
