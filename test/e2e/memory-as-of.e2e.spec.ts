import { EngramHarness, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/** Bi-temporal recall (issue 4, point 4): `asOf` answers as engram knew it at that instant. */
describe('recall asOf (HTTP)', () => {
  let engram: EngramHarness;
  let clock: TestClock;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterEach(async () => engram.destroy());

  async function say(userId: string, turnId: string, text: string, occurredAt: string) {
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', [{ turnId, text, occurredAt }]))
      .expect(202);
    return response.body.position as string;
  }

  async function recall(body: Record<string, unknown>): Promise<string[]> {
    const response = await engram.http().post('/v1/recall').send(body).expect(200);
    // Facts, memories and episodes (whole turns): the episode of the turn that said 三万 is retired
    // with the value, and comes back for an instant before the correction like the value itself.
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content);
  }

  it('answers the corrected budget now and the old one as of before the correction (Chinese)', async () => {
    await say('laozhou', 't1', '预算控制在三万以内', '2026-11-30T08:00:00Z');
    clock.set('2026-12-05T09:00:00Z');
    const after = await say('laozhou', 't2', '预算提到五万了', '2026-12-05T08:00:00Z');

    const now = await recall({ userId: 'laozhou', query: '预算是多少', after });
    expect(now.some((c) => c.includes('五万'))).toBe(true);
    expect(now.some((c) => c.includes('三万'))).toBe(false);

    const then = await recall({ userId: 'laozhou', query: '预算是多少', asOf: '2026-12-01T00:00:00Z' });
    expect(then.some((c) => c.includes('三万'))).toBe(true);
    expect(then.some((c) => c.includes('五万'))).toBe(false);

    // Before engram had heard of any budget, there was none.
    const before = await recall({ userId: 'laozhou', query: '预算是多少', asOf: '2026-11-30T08:30:00Z' });
    expect(before.some((c) => c.includes('万'))).toBe(false);

    const { memories } = (await engram.http().get('/v1/users/laozhou/memories').expect(200)).body;
    const budget = memories.find((m: { attribute: string }) => m.attribute === 'budget');
    expect(budget.value).toBe('五万');
    expect(budget.history.map((v: { value: string }) => v.value)).toEqual(['三万']);
  });

  it('answers the corrected budget now and the old one as of before the correction (English)', async () => {
    await say('sam', 't1', 'The budget is 30k', '2026-11-30T08:00:00Z');
    clock.set('2026-12-05T09:00:00Z');
    const after = await say('sam', 't2', 'Actually the budget is 50k now', '2026-12-05T08:00:00Z');

    const now = await recall({ userId: 'sam', query: 'what is the budget', after });
    expect(now.some((c) => c.includes('50k'))).toBe(true);
    expect(now.some((c) => c.includes('30k'))).toBe(false);

    const then = await recall({ userId: 'sam', query: 'what is the budget', asOf: '2026-12-04T23:59:59Z' });
    expect(then.some((c) => c.includes('30k'))).toBe(true);
    expect(then.some((c) => c.includes('50k'))).toBe(false);
  });

  it('keeps a memory forgotten later, and leaves out one learned later', async () => {
    await say('lin', 't1', "what's the weather today? I prefer window seats", '2026-11-30T08:00:00Z');
    clock.set('2026-12-20T09:00:00Z');
    await say('lin', 't2', 'I prefer VS Code for TypeScript work', '2026-12-20T08:00:00Z');
    await engram.http().post('/v1/forgetting/run').send({}).expect(200);

    // The one-off request (the turn's episode) expired; the preference said beside it did not.
    expect((await recall({ userId: 'lin', query: 'weather today' })).some((c) => c.includes('weather'))).toBe(false);
    const then = await recall({ userId: 'lin', query: 'weather today VS Code', asOf: '2026-12-01T00:00:00Z' });
    expect(then.some((c) => c.includes('weather'))).toBe(true);
    expect(then.some((c) => c.includes('VS Code'))).toBe(false);
  });

  it('rejects an asOf that is not an ISO instant', async () => {
    const response = await engram.http().post('/v1/recall').send({ userId: 'u1', query: 'x', asOf: 'yesterday' }).expect(400);
    expect(response.body.fields).toEqual(['asOf']);
  });
});
