import { AccessStore } from '@engram/ports';
import { EngramHarness, rebuildOffline, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * Forgetting (issue 4, point 6): ephemeral items expire after 7 days, low-confidence items nobody
 * recalled for 90 days are archived; both are events decided by the resolver, on demand or on a
 * schedule, with time injected.
 */
describe('forgetting (HTTP, injectable clock)', () => {
  let engram: EngramHarness;
  let clock: TestClock;

  afterEach(async () => engram?.destroy());

  async function start(env: Record<string, string> = {}, dataDir?: string) {
    engram = await startEngram({ clock, env, dataDir });
  }

  async function ingest(userId: string, turns: Parameters<typeof turnsBody>[2]) {
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', turns))
      .expect(202);
    return response.body.position as string;
  }

  async function recallContents(userId: string, query: string, after?: string, kinds?: string[]): Promise<string[]> {
    const response = await engram
      .http()
      .post('/v1/recall')
      .send({ userId, query, ...(after ? { after } : {}), ...(kinds ? { kinds } : {}) })
      .expect(200);
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content);
  }

  async function memories(userId: string, status = 'all') {
    const response = await engram.http().get(`/v1/users/${userId}/memories?status=${status}`).expect(200);
    // Episodes (whole turns, kind `episode`) follow the same rules; the assertions look at the extracted facts.
    return (response.body.memories as { kind: string; content: string; status: string; ephemeral: boolean; memoryId: string }[]).filter(
      (m) => m.kind !== 'episode',
    );
  }

  async function runForgetting(body: Record<string, unknown> = {}) {
    const response = await engram.http().post('/v1/forgetting/run').send(body).expect(200);
    return response.body as { users: number; expired: number; archived: number; consistent: boolean };
  }

  beforeEach(() => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
  });

  /** The episode of a turn (the turn as it was said), by a phrase of its text. */
  async function episodeOf(userId: string, phrase: string) {
    const response = await engram.http().get(`/v1/users/${userId}/memories?status=all`).expect(200);
    return (response.body.memories as { kind: string; content: string; status: string; ephemeral: boolean }[]).find(
      (m) => m.kind === 'episode' && m.content.includes(phrase),
    );
  }

  it('forgets a one-off request after 7 days, keeps it before, and keeps the preference said beside it (Chinese)', async () => {
    await start();
    const after = await ingest('xiaoli', [
      { turnId: 't1', text: '帮我看看这家店的营业时间，我喜欢吃川菜', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', text: '我喜欢用 VS Code', occurredAt: '2026-11-30T08:01:00Z' },
    ]);
    expect((await recallContents('xiaoli', '营业时间', after)).some((c) => c.includes('营业时间'))).toBe(true);
    expect(await episodeOf('xiaoli', '营业时间')).toMatchObject({ ephemeral: true, status: 'active' });
    // The preference is the user's, not the request's: it does not expire with it.
    expect((await memories('xiaoli')).find((m) => m.content.includes('川菜'))).toMatchObject({ kind: 'preference', ephemeral: false });

    clock.advanceDays(6);
    expect(await runForgetting()).toEqual({ users: 1, expired: 0, archived: 0, consistent: true });
    expect((await recallContents('xiaoli', '营业时间')).some((c) => c.includes('营业时间'))).toBe(true);

    clock.advanceDays(2);
    const run = await runForgetting();
    expect(run).toMatchObject({ users: 1, expired: 1, archived: 0, consistent: true }); // the request's episode
    expect((await recallContents('xiaoli', '营业时间')).some((c) => c.includes('营业时间'))).toBe(false);
    expect(await recallContents('xiaoli', '川菜')).toContain('我喜欢吃川菜');
    expect((await recallContents('xiaoli', 'VS Code 编辑器')).some((c) => c.includes('VS Code'))).toBe(true);
    // Still there, as an expired memory: forgetting is a decision, not a deletion.
    expect(await episodeOf('xiaoli', '营业时间')).toMatchObject({ status: 'expired' });
    expect((await memories('xiaoli', 'active')).some((m) => m.content.includes('川菜'))).toBe(true);
    // Running again decides nothing new.
    expect(await runForgetting()).toMatchObject({ expired: 0, archived: 0 });
  });

  it('forgets "what\'s the weather today" on the schedule, keeps the preference said beside it, and a rebuild keeps both (English)', async () => {
    await start({ ENGRAM_FORGETTING_INTERVAL_MS: '100' });
    const after = await ingest('sam', [
      { turnId: 't1', text: "what's the weather today? I prefer window seats", occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', text: 'I prefer VS Code for TypeScript work', occurredAt: '2026-11-30T08:01:00Z' },
    ]);
    expect((await recallContents('sam', 'weather today', after)).some((c) => c.includes('weather'))).toBe(true);

    clock.advanceDays(7.5);
    const deadline = Date.now() + 10_000;
    while ((await episodeOf('sam', 'weather'))?.status !== 'expired') {
      if (Date.now() > deadline) throw new Error('the scheduled sweep did not expire the ephemeral memory');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await engram.http().get('/v1/pipeline/status').expect(200);
    const waitIndexed = Date.now() + 10_000;
    while ((await recallContents('sam', 'weather today')).some((c) => c.includes('weather'))) {
      if (Date.now() > waitIndexed) throw new Error('recall still returns the expired memory');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await recallContents('sam', 'window seats')).toContain('I prefer window seats');
    expect((await memories('sam')).find((m) => m.content === 'I prefer window seats')).toMatchObject({
      ephemeral: false,
      status: 'active',
    });
    expect((await recallContents('sam', 'VS Code editor')).some((c) => c.includes('VS Code'))).toBe(true);

    // Expiry is an event on memory.facts.v1: replaying the log from scratch decides nothing again and keeps it.
    const dataDir = engram.dataDir;
    const before = await memories('sam');
    const expiredEpisode = await episodeOf('sam', 'weather');
    await engram.stop();
    await rebuildOffline(dataDir);
    await start({}, dataDir);
    expect(await memories('sam')).toEqual(before);
    expect(await episodeOf('sam', 'weather')).toEqual(expiredEpisode);
    expect((await recallContents('sam', 'weather today')).some((c) => c.includes('weather'))).toBe(false);
    expect(await recallContents('sam', 'window seats')).toContain('I prefer window seats');
  });

  it('archives low-confidence memories nobody recalled for 90 days; recalled ones stay', async () => {
    // Rule-extracted preferences have confidence 0.75: raise the bar so they count as low-confidence here.
    await start({ ENGRAM_ARCHIVE_CONFIDENCE: '0.8' });
    const after = await ingest('lin', [
      { turnId: 't1', text: '我喜欢喝绿茶', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', text: 'I prefer aisle seats on long flights', occurredAt: '2026-11-30T08:01:00Z' },
    ]);
    expect((await recallContents('lin', '绿茶', after)).some((c) => c.includes('绿茶'))).toBe(true);
    clock.advanceDays(60);
    expect((await recallContents('lin', '喝什么茶')).some((c) => c.includes('绿茶'))).toBe(true);
    // Access statistics are projected asynchronously from recall's access events.
    const access = engram.app.get<AccessStore>(AccessStore);
    const all = await memories('lin');
    const tea = all.find((m) => m.content.includes('绿茶'))!;
    const deadline = Date.now() + 10_000;
    while ((await access.get('default', 'lin', [tea.memoryId])).get(tea.memoryId)?.lastAccessAt !== clock.now().toISOString()) {
      if (Date.now() > deadline) throw new Error('access was not projected');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    clock.advanceDays(31); // 91 days after both were said; 31 days after tea was last recalled
    const run = await runForgetting({ userIds: ['lin'] });
    expect(run).toMatchObject({ users: 1, expired: 0, consistent: true });
    expect(run.archived).toBeGreaterThanOrEqual(1);
    const statuses = Object.fromEntries((await memories('lin')).map((m) => [m.content, m.status]));
    expect(statuses).toEqual({ 我喜欢喝绿茶: 'active', 'I prefer aisle seats on long flights': 'archived' });
    expect((await recallContents('lin', 'aisle seats flights', undefined, ['preference'])).some((c) => c.includes('aisle'))).toBe(false);
    // The preference was a claim nobody confirmed; the turn is what was said, and stays findable (its episode).
    expect((await recallContents('lin', 'aisle seats flights', undefined, ['episode'])).some((c) => c.includes('aisle'))).toBe(true);
    // Archived memories are still exported.
    const bundle = (await engram.http().get('/v1/users/lin/export').expect(200)).body;
    const exported = bundle.memories.filter((m: { kind: string }) => m.kind !== 'episode');
    expect(exported.map((m: { status: string }) => m.status).sort()).toEqual(['active', 'archived']);
  });

  it('validates the request', async () => {
    await start();
    const response = await engram
      .http()
      .post('/v1/forgetting/run')
      .send({ userIds: ['has space'] })
      .expect(400);
    expect(response.body.fields).toEqual(['userIds']);
  });

  it("is a tenant's route outside /v1/admin: a tenant key sweeps its own users only; no key or the admin key is refused", async () => {
    await start({ ENGRAM_API_KEYS: 'key-a=acme,key-b=beta', ENGRAM_ADMIN_KEY: 'the-admin-key' });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    // The same user id in two tenants, each with a one-off request that expires after 7 days.
    for (const key of ['key-a', 'key-b']) {
      const { body } = await engram
        .http()
        .post('/v1/turns')
        .set(as(key))
        .send(turnsBody('xiaoli', 's1', [{ turnId: 't1', text: '帮我看看这家店的营业时间', occurredAt: '2026-11-30T08:00:00Z' }]))
        .expect(202);
      await engram.http().post('/v1/recall').set(as(key)).send({ userId: 'xiaoli', query: '营业时间', after: body.position }).expect(200);
    }
    const requestOf = async (key: string) => {
      const all = (await engram.http().get('/v1/users/xiaoli/memories?status=all').set(as(key)).expect(200)).body.memories;
      return (all as { content: string; status: string }[]).find((m) => m.content.includes('营业时间'))?.status;
    };
    clock.advanceDays(8);

    await engram.http().post('/v1/forgetting/run').send({}).expect(401);
    await engram.http().post('/v1/forgetting/run').set(as('the-admin-key')).send({}).expect(401); // not a tenant's key
    expect([await requestOf('key-a'), await requestOf('key-b')]).toEqual(['active', 'active']);

    const run = (await engram.http().post('/v1/forgetting/run').set(as('key-a')).send({}).expect(200)).body;
    expect(run).toMatchObject({ users: 1, expired: 1, consistent: true });
    expect([await requestOf('key-a'), await requestOf('key-b')]).toEqual(['expired', 'active']);

    // Naming another tenant's users reaches nothing of theirs (the ids are the caller's tenant's).
    expect(
      (
        await engram
          .http()
          .post('/v1/forgetting/run')
          .set(as('key-a'))
          .send({ userIds: ['xiaoli'] })
          .expect(200)
      ).body,
    ).toMatchObject({
      expired: 0,
    });
    expect(await requestOf('key-b')).toBe('active');
    // It moved: /v1/admin is for the deployment's routes, which take the admin key.
    await engram.http().post('/v1/admin/forgetting/run').set(as('key-b')).send({}).expect(404);
    await engram.http().post('/v1/admin/forgetting/run').set(as('the-admin-key')).send({}).expect(404);
    expect(await requestOf('key-b')).toBe('active');
  });
});
