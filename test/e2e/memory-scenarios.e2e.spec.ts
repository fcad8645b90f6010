import { Topics, parseEvent, type TurnScreened } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { EventPublisher } from '@engram/services';
import { consumeUpTo } from '../../libs/services/src/transport/consume-up-to';
import { EngramHarness, startEngram, TestClock, turnsBody } from '../support/engram-harness';

/**
 * The memory-intelligence scenarios of issue 4, one `describe` per numbered point, each in Chinese
 * and in English, through the HTTP API of an embedded engram. Points covered in their own files:
 * 3 entity aliases (memory-aliases), 4 asOf (memory-as-of), 5 insights (memory-insights),
 * 6 forgetting (memory-forgetting), 11 export/import (memory-export).
 */
interface Item {
  id: string;
  kind: string;
  content: string;
  sourceTurnIds: string[];
  components?: { usage: number };
}
interface Recalled {
  facts: Item[];
  memories: Item[];
  recent: { turnId: string; text: string }[];
  summary: { lines: string[] } | null;
  context: string;
  tokens: number;
  consistent: boolean;
}
interface StoredMemory {
  kind: string;
  attribute: string;
  value: string;
  content: string;
  status: string;
  mentionCount: number;
  history: { value: string }[];
}

describe('memory scenarios (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let turnNo = 0;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
    engram = await startEngram({ clock, env: { ENGRAM_RECENT_TURNS: '3' } });
  });
  afterEach(async () => engram.destroy());

  /** Posts turns (one per text, a minute apart) and returns the read-your-writes position. */
  async function say(userId: string, texts: string[], sessionId = 's1'): Promise<string> {
    const turns = texts.map((text) => {
      turnNo += 1;
      return { turnId: `t${turnNo}`, text, occurredAt: new Date(clock.now().getTime() - 3_600_000 + turnNo * 60_000).toISOString() };
    });
    const response = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    return response.body.position as string;
  }

  async function recall(body: Record<string, unknown>): Promise<Recalled> {
    return (await engram.http().post('/v1/recall').send(body).expect(200)).body as Recalled;
  }

  const recalledText = (r: Recalled) => [...r.facts, ...r.memories].map((m) => m.content).join('\n');

  async function memories(userId: string, status: 'active' | 'all' = 'active'): Promise<StoredMemory[]> {
    return (await engram.http().get(`/v1/users/${userId}/memories?status=${status}`).expect(200)).body.memories;
  }

  /** Every screening verdict on the log (the audit trail), read by a consumer group of its own. */
  async function verdicts(): Promise<TurnScreened['payload'][]> {
    const log = engram.app.get<EventLog>(EventLog);
    const topic = engram.app.get(EventPublisher).topic(Topics.screened);
    const found: TurnScreened['payload'][] = [];
    await consumeUpTo(log, topic, `audit-${turnNo}`, await log.endPosition(topic), async (messages) => {
      for (const m of messages) {
        const event = parseEvent(m.value);
        if (event.type === 'TurnScreened') found.push(event.payload);
      }
    });
    return found;
  }

  describe('1. screening', () => {
    it('drops chit-chat and keeps statements, with a verdict and its reasons for every turn', async () => {
      const after = await say('mei', ['嗯嗯', '好的', 'ok', 'thanks!', '我喜欢喝美式咖啡', 'I prefer window seats on flights']);
      await recall({ userId: 'mei', query: '咖啡', after });
      const byText = new Map((await verdicts()).map((v) => [v.text, v]));
      for (const chat of ['嗯嗯', '好的', 'ok', 'thanks!']) {
        expect(byText.get(chat)).toMatchObject({ verdict: 'rejected' });
        expect(byText.get(chat)!.reasons.length).toBeGreaterThan(0);
      }
      for (const statement of ['我喜欢喝美式咖啡', 'I prefer window seats on flights']) {
        expect(byText.get(statement)).toMatchObject({ verdict: 'accepted', signals: expect.arrayContaining(['preference']) });
        expect(byText.get(statement)!.reasons.length).toBeGreaterThan(0);
      }
      const stored = (await memories('mei')).map((m) => m.content).join('\n');
      expect(stored).toContain('美式咖啡');
      expect(stored).toContain('window seats');
      expect(stored).not.toMatch(/嗯嗯|thanks!/);
    });

    it('accepts corrections, "remember this", budgets and deadlines; tags one-off requests ephemeral', async () => {
      const after = await say('mei', [
        '记住，我女儿对花生过敏',
        'remember that my passport expires in March',
        'the deadline is Friday',
        '预算控制在三万以内',
        '帮我看看这家店的营业时间',
        "what's the weather today",
      ]);
      await recall({ userId: 'mei', query: '过敏', after });
      const byText = new Map((await verdicts()).map((v) => [v.text, v]));
      for (const kept of [
        '记住，我女儿对花生过敏',
        'remember that my passport expires in March',
        'the deadline is Friday',
        '预算控制在三万以内',
      ]) {
        expect(byText.get(kept)).toMatchObject({ verdict: 'accepted', ephemeral: false });
      }
      for (const oneOff of ['帮我看看这家店的营业时间', "what's the weather today"]) {
        expect(byText.get(oneOff)).toMatchObject({ ephemeral: true });
      }
    });

    it('masks PII before anything is stored: absent from every response, the export, the log and every file', async () => {
      const secrets = {
        mobile: '13812345678',
        international: '+44 20 7946 0958',
        email: 'mei.lin@example.com',
        card: '4111 1111 1111 1111',
        residentId: '11010519491231002X',
        password: 'Hunter2-secret',
        apiKey: 'sk-live-51Habc123XYZ',
        wechat: 'meilin_88',
      };
      const after = await say('mei', [
        `我的手机号是 ${secrets.mobile}，邮箱 ${secrets.email}`,
        `my London number is ${secrets.international} and my card is ${secrets.card}`,
        `身份证号 ${secrets.residentId}，微信号 ${secrets.wechat}`,
        `my password is ${secrets.password} and the api key is ${secrets.apiKey}`,
      ]);
      const responses = [
        await recall({ userId: 'mei', query: '手机号 邮箱 身份证 微信', after, sessionId: 's1' }),
        await recall({ userId: 'mei', query: 'phone card password api key', sessionId: 's1' }),
      ];
      const exported = (await engram.http().get('/v1/users/mei/export').expect(200)).body;
      const everything = [JSON.stringify(responses), JSON.stringify(exported), JSON.stringify(await memories('mei', 'all'))].join('\n');
      expect(everything).toContain('[PHONE]');
      expect(everything).toContain('[CARD]');
      await engram.stop(); // flush SQLite's WAL so every byte is in the files read below
      const disk = await engram.storedData();
      for (const [name, secret] of Object.entries(secrets)) {
        expect({ name, leakedInApi: everything.includes(secret) }).toEqual({ name, leakedInApi: false });
        expect({ name, leakedOnDisk: disk.includes(secret) }).toEqual({ name, leakedOnDisk: false });
      }
    });
  });

  describe('2. extraction: one fact per item, of every kind', () => {
    it('extracts preference, profile, fact, decision and task items (Chinese)', async () => {
      const after = await say('wang', [
        '我叫王芳，我在字节跳动工作',
        '我不吃香菜',
        '每周三下午两点例会',
        '我们决定用 PostgreSQL',
        '第一步先把旧数据迁移完',
      ]);
      await recall({ userId: 'wang', query: '例会', after });
      const kinds = new Set((await memories('wang')).filter((m) => m.kind !== 'episode').map((m) => m.kind));
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['decision', 'fact', 'preference', 'profile', 'task']));
    });

    it('extracts preference, profile, fact, decision and task items (English)', async () => {
      const after = await say('sam', [
        'My name is Sam and I work at Stripe',
        "I don't eat shellfish",
        'we meet every Wednesday at 2pm',
        'the deadline is Friday',
        'we decided to use Kafka',
        "I'm working on the billing migration",
      ]);
      await recall({ userId: 'sam', query: 'deadline', after });
      const stored = (await memories('sam')).filter((m) => m.kind !== 'episode');
      expect([...new Set(stored.map((m) => m.kind))].sort()).toEqual(
        expect.arrayContaining(['decision', 'fact', 'preference', 'profile', 'task']),
      );
      // One fact per item: the name and the employer are two memories, not one sentence.
      expect(stored.find((m) => m.attribute === 'name')?.value).toBe('Sam');
      expect(stored.some((m) => m.attribute !== 'name' && m.value.includes('Stripe'))).toBe(true);
    });
  });

  describe('4. resolution', () => {
    it('"我喜欢用 VS Code" said five times stays one memory, reinforced', async () => {
      const after = await say('zhou', Array(5).fill('我喜欢用 VS Code'));
      const recalled = await recall({ userId: 'zhou', query: '用什么编辑器', after });
      const editor = (await memories('zhou')).filter((m) => m.kind !== 'episode' && m.content.includes('VS Code'));
      expect(editor.map((m) => m.mentionCount)).toEqual([5]);
      expect(recalledText(recalled).split('VS Code').length - 1).toBe(1);
    });

    it('"I prefer VS Code" said five times stays one memory, reinforced', async () => {
      const after = await say('kim', Array(5).fill('I prefer VS Code'));
      const recalled = await recall({ userId: 'kim', query: 'which editor', after });
      expect((await memories('kim')).filter((m) => m.kind !== 'episode').map((m) => m.mentionCount)).toEqual([5]);
      expect(recalledText(recalled).split('VS Code').length - 1).toBe(1);
    });

    it('a new budget supersedes the old one: only 五万 is recalled (no turn that said 三万 either), 三万 is in the history', async () => {
      await say('zhou', ['预算控制在三万以内']);
      clock.advanceDays(3);
      const after = await say('zhou', ['预算提到五万了']);
      const recalled = await recall({ userId: 'zhou', query: '预算是多少', after });
      expect(recalledText(recalled)).toContain('五万');
      expect(recalledText(recalled)).not.toContain('三万');
      const budget = (await memories('zhou')).find((m) => m.attribute === 'budget')!;
      expect(budget).toMatchObject({ value: '五万' });
      expect(budget.history.map((h) => h.value)).toEqual(['三万']);
    });

    it('a new budget supersedes the old one (English): only the newest is recalled', async () => {
      await say('sam', ['The budget is 30k']);
      clock.advanceDays(3);
      const after = await say('sam', ['Actually the budget is 50k now']);
      const recalled = await recall({ userId: 'sam', query: 'what is the budget', after });
      expect(recalledText(recalled)).toContain('50k');
      expect(recalledText(recalled)).not.toContain('30k');
    });

    it('near-duplicate content merges instead of adding', async () => {
      const after = await say('lin', [
        '我们的数据库用 PostgreSQL',
        '数据库用 PostgreSQL',
        'our database is PostgreSQL 16',
        'the database is PostgreSQL 16',
      ]);
      await recall({ userId: 'lin', query: 'database', after });
      const postgres = (await memories('lin')).filter((m) => m.kind !== 'episode' && m.content.includes('PostgreSQL'));
      expect(postgres.length).toBeLessThanOrEqual(2); // one per language at most
      expect(postgres.reduce((sum, m) => sum + m.mentionCount, 0)).toBe(4);
    });

    it('"忘掉我之前说的预算" retracts the budget; it is no longer recalled but kept', async () => {
      await say('zhou', ['预算三万']);
      const after = await say('zhou', ['忘掉我之前说的预算']);
      const recalled = await recall({ userId: 'zhou', query: '预算', after });
      expect(recalledText(recalled)).not.toContain('三万');
      const all = await memories('zhou', 'all');
      expect(all.find((m) => m.attribute === 'budget')).toMatchObject({ status: 'retracted', value: '三万' });
    });

    it('"that\'s no longer true" retracts what was said last', async () => {
      await say('kim', ['I live in Berlin']);
      const after = await say('kim', ["that's no longer true"]);
      const recalled = await recall({ userId: 'kim', query: 'where do I live', after });
      expect(recalledText(recalled)).not.toContain('Berlin');
      expect((await memories('kim', 'all')).some((m) => m.status === 'retracted' && m.value.includes('Berlin'))).toBe(true);
    });
  });

  describe('7–8. recall and context assembly', () => {
    it('puts the pinned name first, caps the memories, tags sections with dates, then the recent window', async () => {
      const after = await say('wang', [
        '我叫王芳',
        '我喜欢喝美式咖啡',
        '我喜欢喝乌龙茶',
        '我喜欢喝豆浆',
        '我喜欢喝椰子水',
        '我喜欢喝抹茶',
        '我喜欢喝气泡水',
        '我喜欢喝红茶',
      ]);
      const recalled = await recall({ userId: 'wang', query: '喜欢喝什么', after, sessionId: 's1', k: 3 });
      expect(recalled.facts.map((f) => f.content)).toEqual([expect.stringContaining('王芳')]);
      expect(recalled.memories.length).toBeLessThanOrEqual(3);
      expect(recalled.memories.length).toBeGreaterThan(0);
      // The recent turns are those the session summary does not cover, oldest first: the last
      // ENGRAM_RECENT_TURNS (3), plus the one that left the window since the summary was derived
      // (every ENGRAM_SUMMARY_EVERY = 4 turns out of the window: it covers the first four).
      expect(recalled.recent.map((t) => t.text)).toEqual(['我喜欢喝椰子水', '我喜欢喝抹茶', '我喜欢喝气泡水', '我喜欢喝红茶']);
      expect(recalled.summary?.lines.join('\n')).toContain('我喜欢喝豆浆');
      const { context } = recalled;
      expect(context).toMatch(/overrides/);
      const order = ['<facts>', '<memories>', '<recent>'].map((tag) => context.indexOf(tag));
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(context).toMatch(/2026-11-30/);
    });

    it('stays within the token budget, counting Chinese and English alike', async () => {
      await engram.destroy();
      engram = await startEngram({ clock, env: { ENGRAM_TOKEN_BUDGET: '80' } });
      const long = (i: number) =>
        `I prefer the ${i}th long meeting room on the fourth floor because its whiteboard and its screen are large and it is quiet`;
      const after = await say('sam', [long(1), long(2), long(3), '我喜欢在四楼的大会议室开会，因为白板很大，屏幕也大，而且很安静']);
      const recalled = await recall({ userId: 'sam', query: 'which meeting room 会议室', after, sessionId: 's1' });
      expect(recalled.tokens).toBeLessThanOrEqual(80);
      expect(recalled.tokens).toBeGreaterThan(0);
    });

    it('recalls nothing for a question the user never talked about', async () => {
      const after = await say('kim', ['I prefer VS Code', '我喜欢喝美式咖啡']);
      const recalled = await recall({ userId: 'kim', query: 'what is the capital of Peru', after });
      expect(recalled.memories).toEqual([]);
    });
  });

  describe('9. access tracking feeds ranking', () => {
    it('projects recall use asynchronously and shows it in the score components', async () => {
      const after = await say('mei', ['我喜欢喝美式咖啡', 'I prefer window seats on flights']);
      const first = await recall({ userId: 'mei', query: '美式咖啡', after, debug: true });
      expect(first.memories[0].components!.usage).toBe(0);
      for (let i = 0; i < 4; i++) await recall({ userId: 'mei', query: '美式咖啡' });
      // Access events are projected off the read path: wait until they are.
      let usage = 0;
      for (let attempt = 0; attempt < 100 && usage === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const again = await recall({ userId: 'mei', query: '美式咖啡', debug: true });
        usage = again.memories.find((m) => m.content.includes('美式咖啡'))!.components!.usage;
      }
      expect(usage).toBeGreaterThan(0);
      const english = await recall({ userId: 'mei', query: 'window seats', debug: true });
      expect(english.memories[0].components!.usage).toBe(0);
    });
  });

  describe('10. read-your-writes', () => {
    it('recalls a memory right after its turn with `after`, and says so', async () => {
      for (const [userId, text, query, word] of [
        ['mei', '我对芒果过敏', '过敏', '芒果'],
        ['sam', "I'm allergic to peanuts", 'allergic', 'peanuts'],
      ]) {
        const after = await say(userId, [text]);
        const recalled = await recall({ userId, query, after });
        expect(recalled.consistent).toBe(true);
        expect(recalledText(recalled)).toContain(word);
      }
      const status = (await engram.http().get('/v1/pipeline/status').expect(200)).body;
      expect(status.pending).toBeGreaterThanOrEqual(0);
    });
  });
});
