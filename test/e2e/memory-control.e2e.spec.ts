import type { AddressInfo } from 'node:net';
import { loadConfig } from '@engram/config';
import { buildCli } from '../../apps/engram/cli/engram-cli';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, rebuildOffline, startEngram, TestClock, turnsBody } from '../support/engram-harness';

interface Memory {
  memoryId: string;
  kind: string;
  attribute: string;
  value: string;
  content: string;
  status: string;
  statusReason?: string;
  version: number;
  pinned: boolean;
  history: { version: number; value: string }[];
}

/** Per-memory control by the application (issue 11 §2): retract, revert, profile facts, over HTTP and the CLI. */
describe('per-memory control (HTTP, CLI)', () => {
  let engram: EngramHarness;
  let clock: TestClock;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock });
  });
  afterEach(async () => engram.destroy());

  async function say(userId: string, turnId: string, text: string, occurredAt = '2026-11-30T08:00:00Z') {
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', [{ turnId, text, occurredAt }]))
      .expect(202);
    // Wait until recall sees it.
    await engram.http().post('/v1/recall').send({ userId, query: 'x', after: response.body.position }).expect(200);
  }

  async function recalled(userId: string, query: string): Promise<string[]> {
    const response = await engram.http().post('/v1/recall').send({ userId, query }).expect(200);
    return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content);
  }

  async function memories(userId: string, all = false): Promise<Memory[]> {
    return (
      await engram
        .http()
        .get(`/v1/users/${userId}/memories${all ? '?status=all' : ''}`)
        .expect(200)
    ).body.memories;
  }

  async function find(userId: string, attribute: string): Promise<Memory> {
    const memory = (await memories(userId, true)).find((m) => m.attribute === attribute && m.kind !== 'episode');
    if (!memory) throw new Error(`no ${attribute} memory for ${userId}`);
    return memory;
  }

  describe('DELETE /v1/users/:userId/memories/:memoryId', () => {
    it('retracts a preference and the turn that said it, with the reason kept (Chinese)', async () => {
      await say('laozhou', 't1', '我喜欢吃榴莲');
      expect((await recalled('laozhou', '我喜欢吃什么')).some((c) => c.includes('榴莲'))).toBe(true);
      const durian = (await memories('laozhou')).find((m) => m.kind !== 'episode' && m.content.includes('榴莲'))!;

      const response = await engram
        .http()
        .delete(`/v1/users/laozhou/memories/${durian.memoryId}`)
        .send({ reason: '用户说不再喜欢了' })
        .expect(200);
      expect(response.body).toMatchObject({
        changed: true,
        consistent: true,
        memory: { memoryId: durian.memoryId, status: 'retracted', statusReason: '用户说不再喜欢了' },
      });

      expect((await recalled('laozhou', '我喜欢吃什么')).some((c) => c.includes('榴莲'))).toBe(false);
      expect((await memories('laozhou')).some((m) => m.content.includes('榴莲'))).toBe(false);
      const kept = (await memories('laozhou', true)).filter((m) => m.content.includes('榴莲'));
      expect(kept.map((m) => m.status)).toEqual(['retracted', 'retracted']); // the preference and its episode

      // Retracting again changes nothing.
      const again = await engram
        .http()
        .delete(`/v1/users/laozhou/memories/${durian.memoryId}?reason=${encodeURIComponent('再删一次')}`)
        .expect(200);
      expect(again.body).toMatchObject({ changed: false, memory: { statusReason: '用户说不再喜欢了' } });
    });

    it('retracts a preference with the reason as a query parameter (English)', async () => {
      await say('sam', 't1', 'I prefer window seats on long flights');
      expect((await recalled('sam', 'which seat do I prefer')).some((c) => c.includes('window seats'))).toBe(true);
      const seat = (await memories('sam')).find((m) => m.kind === 'preference')!;

      await engram
        .http()
        .delete(`/v1/users/sam/memories/${seat.memoryId}?reason=${encodeURIComponent('wrong: that was my colleague')}`)
        .expect(200);
      expect((await recalled('sam', 'which seat do I prefer')).some((c) => c.includes('window seats'))).toBe(false);
      expect(await find('sam', seat.attribute)).toMatchObject({ status: 'retracted', statusReason: 'wrong: that was my colleague' });
    });

    it('needs a reason, and answers 404 for an unknown memory', async () => {
      await say('mei', 't1', '我喜欢用 VS Code');
      const editor = (await memories('mei')).find((m) => m.kind === 'preference')!;
      const missing = await engram.http().delete(`/v1/users/mei/memories/${editor.memoryId}`).expect(400);
      expect(missing.body.fields).toEqual(['reason']);
      const blank = await engram.http().delete(`/v1/users/mei/memories/${editor.memoryId}`).send({ reason: '   ' }).expect(400);
      expect(blank.body.fields).toEqual(['reason']);
      const unknown = await engram.http().delete('/v1/users/mei/memories/no-such-memory').send({ reason: 'x' }).expect(404);
      expect(unknown.body.fields).toEqual(['memoryId']);
      expect((await find('mei', editor.attribute)).status).toBe('active');
    });
  });

  describe('POST /v1/users/:userId/memories/:memoryId/revert', () => {
    it('restores the earlier budget as a new version, and recall answers it (Chinese)', async () => {
      await say('laozhou', 't1', '预算控制在三万以内', '2026-11-30T08:00:00Z');
      clock.set('2026-12-05T09:00:00Z');
      await say('laozhou', 't2', '预算提到五万了', '2026-12-05T08:00:00Z');
      const budget = await find('laozhou', 'budget');
      expect(budget).toMatchObject({ value: '五万', version: 2 });

      clock.set('2026-12-06T09:00:00Z');
      const response = await engram.http().post(`/v1/users/laozhou/memories/${budget.memoryId}/revert`).send({ version: 1 }).expect(200);
      expect(response.body.memory).toMatchObject({ value: '三万', version: 3, status: 'active' });
      expect(response.body.memory.history.map((v: { value: string }) => v.value)).toEqual(['三万', '五万']);

      const now = await recalled('laozhou', '预算是多少');
      expect(now.some((c) => c.includes('三万'))).toBe(true);
      expect(now.some((c) => c.includes('五万'))).toBe(false);

      // The revert is a version like any other: it can be reverted too.
      await engram.http().post(`/v1/users/laozhou/memories/${budget.memoryId}/revert`).send({ version: 2 }).expect(200);
      expect(await find('laozhou', 'budget')).toMatchObject({ value: '五万', version: 4 });
    });

    it('restores the earlier budget (English), and brings a retracted memory back', async () => {
      await say('sam', 't1', 'The budget is 30k', '2026-11-30T08:00:00Z');
      clock.set('2026-12-05T09:00:00Z');
      await say('sam', 't2', 'Actually the budget is 50k now', '2026-12-05T08:00:00Z');
      const budget = await find('sam', 'budget');

      await engram.http().post(`/v1/users/sam/memories/${budget.memoryId}/revert`).send({ version: 1 }).expect(200);
      const now = await recalled('sam', 'what is the budget');
      expect(now.some((c) => c.includes('30k'))).toBe(true);
      expect(now.some((c) => c.includes('50k'))).toBe(false);

      await engram.http().delete(`/v1/users/sam/memories/${budget.memoryId}`).send({ reason: 'test' }).expect(200);
      expect((await recalled('sam', 'what is the budget')).some((c) => c.includes('30k'))).toBe(false);
      const restored = await engram.http().post(`/v1/users/sam/memories/${budget.memoryId}/revert`).send({ version: 3 }).expect(200);
      expect(restored.body.memory).toMatchObject({ status: 'active', value: '30k', version: 4 });
      expect(restored.body.memory.statusReason).toBeUndefined();
      expect((await recalled('sam', 'what is the budget')).some((c) => c.includes('30k'))).toBe(true);
    });

    it('rejects a bad version with 400 or 404 naming it, changing nothing', async () => {
      await say('sam', 't1', 'The budget is 30k');
      const budget = await find('sam', 'budget');
      for (const version of [0, 1.5, 'two', undefined]) {
        const response = await engram.http().post(`/v1/users/sam/memories/${budget.memoryId}/revert`).send({ version }).expect(400);
        expect(response.body.fields).toEqual(['version']);
      }
      const current = await engram.http().post(`/v1/users/sam/memories/${budget.memoryId}/revert`).send({ version: 1 }).expect(400);
      expect(current.body.fields).toEqual(['version']);
      const unknown = await engram.http().post(`/v1/users/sam/memories/${budget.memoryId}/revert`).send({ version: 7 }).expect(404);
      expect(unknown.body.fields).toEqual(['version']);
      expect(await find('sam', 'budget')).toMatchObject({ value: '30k', version: 1, status: 'active' });
    });
  });

  describe('PUT /v1/users/:userId/profile', () => {
    it('states certain facts: pinned in every recall, superseding what was said (Chinese)', async () => {
      await say('laozhou', 't1', '我叫老周');
      const response = await engram
        .http()
        .put('/v1/users/laozhou/profile')
        .send({ attributes: { name: '周建国', city: '杭州' } })
        .expect(200);
      expect(response.body.consistent).toBe(true);
      expect(response.body.memories.map((m: Memory) => [m.attribute, m.value, m.kind, m.pinned])).toEqual([
        ['name', '周建国', 'profile', true],
        ['city', '杭州', 'profile', true],
      ]);
      expect((await find('laozhou', 'name')).history.map((v) => v.value)).toEqual(['老周']);

      const facts = (await engram.http().post('/v1/recall').send({ userId: 'laozhou', query: '明天开会' }).expect(200)).body.facts;
      expect(facts.map((f: { value: string }) => f.value).sort()).toEqual(['周建国', '杭州'].sort());

      // The same value again reinforces; nothing new.
      await engram
        .http()
        .put('/v1/users/laozhou/profile')
        .send({ attributes: { city: '杭州' } })
        .expect(200);
      expect(await find('laozhou', 'city')).toMatchObject({ value: '杭州', version: 1 });
    });

    it('states certain facts (English), masking PII and lower-casing attributes', async () => {
      await say('sam', 't1', 'My name is Sam');
      const response = await engram
        .http()
        .put('/v1/users/sam/profile')
        .send({ attributes: { Name: 'Samuel Lee', employer: 'Acme Corp', phone: '13812345678' } })
        .expect(200);
      expect(response.body.memories.map((m: Memory) => [m.attribute, m.value])).toEqual([
        ['name', 'Samuel Lee'],
        ['employer', 'Acme Corp'],
        ['phone', '[PHONE]'],
      ]);
      const recall = (await engram.http().post('/v1/recall').send({ userId: 'sam', query: 'where do I work' }).expect(200)).body;
      expect(recall.context).toContain('Acme Corp');
      expect(JSON.stringify(recall)).not.toContain('13812345678');
    });

    it('rejects empty or malformed attributes with 400 naming each, storing nothing', async () => {
      for (const body of [{}, { attributes: {} }, { attributes: 'name=Sam' }]) {
        const response = await engram.http().put('/v1/users/sam/profile').send(body).expect(400);
        expect(response.body.fields).toEqual(['attributes']);
      }
      const bad = await engram
        .http()
        .put('/v1/users/sam/profile')
        .send({ attributes: { city: '', 'bad key': 'x', 'episode:s1:t1': 'x', age: 30 } })
        .expect(400);
      expect(bad.body.fields).toEqual(['attributes.city', 'attributes.bad key', 'attributes.episode:s1:t1', 'attributes.age']);
      expect(await memories('sam', true)).toEqual([]);
    });
  });

  it("isolates users and tenants: another user's or tenant's memory id is 404 and stays untouched", async () => {
    await engram.destroy();
    engram = await startEngram({ clock, env: { ENGRAM_API_KEYS: 'key-a=acme,key-b=globex' } });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const position = (
      await engram
        .http()
        .post('/v1/turns')
        .set(as('key-a'))
        .send(turnsBody('alice', 's1', [{ turnId: 't1', text: '预算控制在三万以内' }]))
        .expect(202)
    ).body.position;
    await engram.http().post('/v1/recall').set(as('key-a')).send({ userId: 'alice', query: 'x', after: position }).expect(200);
    const budget = ((await engram.http().get('/v1/users/alice/memories').set(as('key-a')).expect(200)).body.memories as Memory[]).find(
      (m) => m.attribute === 'budget',
    )!;

    for (const [key, userId] of [
      ['key-a', 'bob'],
      ['key-b', 'alice'],
    ]) {
      const path = `/v1/users/${userId}/memories/${budget.memoryId}`;
      expect((await engram.http().delete(path).set(as(key)).send({ reason: 'x' }).expect(404)).body.fields).toEqual(['memoryId']);
      expect((await engram.http().post(`${path}/revert`).set(as(key)).send({ version: 1 }).expect(404)).body.fields).toEqual(['memoryId']);
    }
    const after = ((await engram.http().get('/v1/users/alice/memories').set(as('key-a')).expect(200)).body.memories as Memory[]).find(
      (m) => m.attribute === 'budget',
    )!;
    expect(after).toEqual(budget);
  });

  it('survives a rebuild: retractions, reverts and profile facts are decisions in the log', async () => {
    await say('lin', 't1', '我喜欢吃榴莲');
    await say('lin', 't2', 'The budget is 30k');
    await say('lin', 't3', 'Actually the budget is 50k now');
    const durian = (await memories('lin')).find((m) => m.kind !== 'episode' && m.content.includes('榴莲'))!;
    await engram.http().delete(`/v1/users/lin/memories/${durian.memoryId}`).send({ reason: 'no longer true' }).expect(200);
    await engram
      .http()
      .post(`/v1/users/lin/memories/${(await find('lin', 'budget')).memoryId}/revert`)
      .send({ version: 1 })
      .expect(200);
    await engram
      .http()
      .put('/v1/users/lin/profile')
      .send({ attributes: { city: 'Hangzhou' } })
      .expect(200);
    const before = await memories('lin', true);

    await engram.stop();
    await rebuildOffline(engram.dataDir);
    engram = await startEngram({ dataDir: engram.dataDir, clock });
    expect(await memories('lin', true)).toEqual(before);
    expect((await recalled('lin', '我喜欢吃什么')).some((c) => c.includes('榴莲'))).toBe(false);
    expect((await recalled('lin', 'what is the budget')).some((c) => c.includes('30k'))).toBe(true);
  });

  it('runs from the command line against a running server (engram retract, revert, profile)', async () => {
    await say('mei', 't1', '预算控制在三万以内', '2026-11-30T08:00:00Z');
    await say('mei', 't2', '预算提到五万了', '2026-12-01T08:00:00Z');
    await say('mei', 't3', 'I prefer window seats');
    await engram.app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(engram.app.getHttpServer().address() as AddressInfo).port}`;
    const modules = {
      server: (config: ReturnType<typeof loadConfig>) => EngramModule.forRoot({ config }),
      rebuild: (config: ReturnType<typeof loadConfig>) => EngramModule.forMaintenance({ config }),
    };
    const cli = async (...args: string[]) => {
      const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      try {
        await buildCli(modules)
          .exitOverride()
          .parseAsync(['node', 'engram', ...args, '--url', url]);
        return JSON.parse(String(log.mock.calls[0][0]));
      } finally {
        log.mockRestore();
      }
    };
    const budget = await find('mei', 'budget');
    expect((await cli('revert', 'mei', budget.memoryId, '--version', '1')).memory).toMatchObject({ value: '三万', version: 3 });
    const seat = (await memories('mei')).find((m) => m.kind === 'preference')!;
    expect((await cli('retract', 'mei', seat.memoryId, '--reason', '说错了')).memory).toMatchObject({
      status: 'retracted',
      statusReason: '说错了',
    });
    expect((await cli('profile', 'mei', 'city=杭州', 'employer=Acme')).memories.map((m: Memory) => m.value)).toEqual(['杭州', 'Acme']);
    await expect(cli('revert', 'mei', 'no-such-memory', '--version', '1')).rejects.toThrow(/404/);

    expect((await recalled('mei', '预算是多少')).some((c) => c.includes('三万'))).toBe(true);
    expect((await recalled('mei', 'which seat')).some((c) => c.includes('window'))).toBe(false);

    // engram recall steers like POST /v1/recall, and validates the same.
    const episodes = await cli('recall', 'mei', '预算是多少', '--kinds', 'episode', '--valid-at', '2026-11-30T12:00:00Z');
    expect(episodes.memories.length).toBeGreaterThan(0);
    expect(episodes.memories.every((m: { kind: string }) => m.kind === 'episode')).toBe(true);
    expect(JSON.stringify(episodes)).toContain('三万');
    expect(JSON.stringify(episodes)).not.toContain('五万');
    await expect(cli('recall', 'mei', '预算是多少', '--kinds', 'nonsense')).rejects.toThrow(/kinds must each be one of/);
  });
});
