import { Topics } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/*
 * The read endpoints the web inspector adds, through HTTP on a real embedded engram:
 * a tenant's users page by page, recall's debug (what the budget cut), projection versions and dead letters (admin).
 */
describe('inspector read endpoints (HTTP)', () => {
  let engram: EngramHarness;
  const acme = { Authorization: 'Bearer key-a' };
  const beta = { Authorization: 'Bearer key-b' };
  const admin = { Authorization: 'Bearer admin-key' };

  beforeAll(async () => {
    engram = await startEngram({ env: { ENGRAM_API_KEYS: 'key-a=acme,key-b=beta', ENGRAM_ADMIN_KEY: 'admin-key' } });
    let turnNo = 0;
    const say = (auth: Record<string, string>, userId: string, text: string) =>
      engram
        .http()
        .post('/v1/turns')
        .set(auth)
        .send(turnsBody(userId, 's1', [{ turnId: `t${++turnNo}`, text }]))
        .expect(202);
    await say(acme, 'laozhou', '我们的数据库用 PostgreSQL，编辑器用 vim');
    await say(acme, 'ann', 'I prefer aisle seats on the long flights to Lisbon');
    await say(acme, 'ann', 'my editor is emacs and I write Rust in it every day');
    await say(acme, 'bob', 'we deploy on Fridays');
    const last = await say(beta, 'carol', 'I live in Lisbon');
    // One recall with `after` on each tenant: the read side has caught up with every turn above.
    await engram.http().post('/v1/recall').set(beta).send({ userId: 'carol', query: 'where', after: last.body.position }).expect(200);
  });
  afterAll(async () => engram?.destroy());

  it("GET /v1/users pages the caller's tenant's users by id, and only theirs", async () => {
    const first = await engram.http().get('/v1/users?limit=2').set(acme).expect(200);
    expect(first.body).toEqual({ users: ['ann', 'bob'], next: 'bob' });
    const second = await engram.http().get('/v1/users').query({ limit: 2, after: first.body.next }).set(acme).expect(200);
    expect(second.body).toEqual({ users: ['laozhou'], next: null });
    expect((await engram.http().get('/v1/users').set(beta).expect(200)).body).toEqual({ users: ['carol'], next: null });
    await engram.http().get('/v1/users').expect(401);
  });

  it('GET /v1/users refuses a bad page with a 400 naming the field', async () => {
    const zero = await engram.http().get('/v1/users?limit=0').set(acme).expect(400);
    expect(zero.body.fields).toEqual(['limit']);
    const many = await engram.http().get('/v1/users?limit=201').set(acme).expect(400);
    expect(many.body.fields).toEqual(['limit']);
    const after = await engram.http().get('/v1/users').query({ after: 'a b' }).set(acme).expect(400);
    expect(after.body.fields).toEqual(['after']);
  });

  it("GET /v1/users/:userId/turns finds the user's turns by id (a memory's source turns), the caller's tenant's only", async () => {
    const { body } = await engram.http().get('/v1/users/ann/turns').query('ids=t3&ids=t2&ids=t1&ids=nope').set(acme).expect(200);
    // t1 is laozhou's: another user's turn is not found through ann.
    expect(body.turns.map((t: { turnId: string; text: string }) => [t.turnId, t.text])).toEqual([
      ['t2', 'I prefer aisle seats on the long flights to Lisbon'],
      ['t3', 'my editor is emacs and I write Rust in it every day'],
    ]);
    expect(body.turns[0]).toEqual({
      sessionId: 's1',
      turnId: 't2',
      role: 'user',
      text: expect.any(String),
      occurredAt: expect.any(String),
    });
    expect((await engram.http().get('/v1/users/laozhou/turns?ids=t1').set(acme).expect(200)).body.turns[0].text).toContain('PostgreSQL');
    expect((await engram.http().get('/v1/users/laozhou/turns?ids=t1').set(beta).expect(200)).body).toEqual({ turns: [] });
    const none = await engram.http().get('/v1/users/ann/turns').set(acme).expect(400);
    expect(none.body.fields).toEqual(['ids']);
    const many = await engram
      .http()
      .get('/v1/users/ann/turns')
      .query(Array.from({ length: 101 }, (_, i) => `ids=t${i}`).join('&'))
      .set(acme)
      .expect(400);
    expect(many.body.fields).toEqual(['ids']);
  });

  it('recall with debug says what each zone used and what the budget cut, with score components', async () => {
    const roomy = await engram
      .http()
      .post('/v1/recall')
      .set(acme)
      .send({ userId: 'ann', query: 'which editor and seat', debug: true })
      .expect(200);
    expect(roomy.body.memories.length).toBeGreaterThan(1);
    expect(roomy.body.debug.cut.memories).toEqual([]);
    expect(roomy.body.debug.zones.memories).toBeGreaterThan(0);
    const tight = await engram
      .http()
      .post('/v1/recall')
      .set(acme)
      .send({ userId: 'ann', query: 'which editor and seat', debug: true, budget: { total: 50 } })
      .expect(200);
    const offered = roomy.body.memories.map((m: { id: string }) => m.id).sort();
    const kept = tight.body.memories.map((m: { id: string }) => m.id);
    const cut = tight.body.debug.cut.memories;
    expect(cut.length).toBeGreaterThan(0);
    expect([...kept, ...cut.map((m: { id: string }) => m.id)].sort()).toEqual(offered);
    expect(cut[0].components).toEqual(
      expect.objectContaining({ relevance: expect.any(Number), decay: expect.any(Number), prior: expect.any(Number) }),
    );
    const plain = await engram.http().post('/v1/recall').set(acme).send({ userId: 'ann', query: 'which editor' }).expect(200);
    expect(plain.body.debug).toBeUndefined();
  });

  it('GET /v1/admin/projections: the version serving and those that exist; admin key only', async () => {
    const { body } = await engram.http().get('/v1/admin/projections').set(admin).expect(200);
    expect(body.projections).toEqual([
      { projection: 'facts', active: 1, versions: [1] },
      { projection: 'sessions', active: 1, versions: [1] },
      { projection: 'search', active: 1, versions: [1] },
    ]);
    await engram.http().get('/v1/admin/projections').set(acme).expect(403);
    await engram.http().get('/v1/admin/projections').expect(401);
  });

  it('GET /v1/admin/dead-letters: a count and the newest letters per topic; admin key only', async () => {
    type Topic = { topic: string; count: number; letters: { stage: string; reason: string; raw: string }[] };
    const topics = async () => (await engram.http().get('/v1/admin/dead-letters').set(admin).expect(200)).body.topics as Topic[];
    const before = await topics();
    expect(before.map((t) => t.topic)).toContain(Topics.turns);
    expect(before.every((t) => t.count === 0 && t.letters.length === 0)).toBe(true);
    // Not a turn: the first stage reading the topic dead-letters it as invalid.
    await engram.app.get<EventLog>(EventLog).append(Topics.turns, [{ key: 'acme:poison', value: { type: 'NotATurn', poison: true } }]);
    let turns: Topic | undefined;
    for (let tries = 0; tries < 100 && !turns?.count; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      turns = (await topics()).find((t) => t.topic === Topics.turns);
    }
    expect(turns?.count).toBeGreaterThan(0);
    expect(turns?.letters[0]).toMatchObject({ reason: 'invalid', raw: expect.stringContaining('NotATurn') });
    await engram.http().get('/v1/admin/dead-letters').set(acme).expect(403);
  });
});
