import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngramHarness, rebuildOffline, startEngram, TurnInput, turnsBody } from '../support/engram-harness';

/**
 * Insights (issue 4 item 5), over HTTP as a client uses them: consistent statements become one
 * insight, recalled first and linked to its sources; a correction retracts it, new support derives
 * it again; export and import carry it; a rebuild reproduces it.
 */
interface Memory {
  memoryId: string;
  kind: string;
  mergeKey: string;
  status: string;
  content: string;
  value: string;
  version: number;
  importance: number;
  sourceTurnIds: string[];
  sources?: string[];
  history: { version: number; sources?: string[] }[];
}

interface RecalledMemory {
  id: string;
  kind: string;
  content: string;
  sourceTurnIds: string[];
  sources?: string[];
}

describe('insights (HTTP)', () => {
  let engram: EngramHarness;
  let other: EngramHarness | undefined;

  beforeEach(async () => {
    engram = await startEngram();
  });
  afterEach(async () => {
    await engram.destroy();
    await other?.destroy();
    other = undefined;
  });

  async function say(userId: string, turns: TurnInput[], target = engram): Promise<string> {
    const { body } = await target
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, 's1', turns))
      .expect(202);
    return body.position;
  }

  async function recall(userId: string, query: string, after?: string, target = engram): Promise<RecalledMemory[]> {
    const { body } = await target
      .http()
      .post('/v1/recall')
      .send({ userId, query, ...(after ? { after } : {}) })
      .expect(200);
    expect(body.consistent).toBe(true);
    return body.memories;
  }

  async function memories(userId: string, target = engram): Promise<Memory[]> {
    return (await target.http().get(`/v1/users/${userId}/memories?status=all`).expect(200)).body.memories;
  }

  const insightsOf = (all: Memory[]) => all.filter((m) => m.kind === 'insight');

  it('中文: three consistent statements derive one insight, recalled first with its sources; a correction retracts it, new support re-derives it', async () => {
    const position = await say('laozhou', [
      { turnId: 't1', text: '我们团队只有三个人，人手不够', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', text: '我不想自己运维服务器', occurredAt: '2026-11-30T08:01:00Z' },
      { turnId: 't3', text: '云数据库太贵了', occurredAt: '2026-11-30T08:02:00Z' },
    ]);
    const recalled = await recall('laozhou', '数据库要不要自己运维', position);

    const all = await memories('laozhou');
    const [insight] = insightsOf(all);
    expect(insightsOf(all)).toHaveLength(1);
    const sources = all.filter((m) => m.kind !== 'insight');
    expect(insight).toMatchObject({
      mergeKey: 'insight:low-maintenance',
      status: 'active',
      version: 1,
      value: '偏好省心、免运维的托管服务',
    });
    expect(insight.content).toBe('偏好省心、免运维的托管服务（依据：我们团队只有三个人，人手不够；我不想自己运维服务器；云数据库太贵了）');
    expect([...insight.sources!].sort()).toEqual(sources.map((m) => m.memoryId).sort());
    expect([...insight.sourceTurnIds].sort()).toEqual(['t1', 't2', 't3']);
    expect(insight.importance).toBeGreaterThan(Math.max(...sources.map((m) => m.importance)));

    // Recall: the insight comes first, linked to the memories it stands on.
    expect(recalled[0]).toMatchObject({ id: insight.memoryId, kind: 'insight', content: insight.content });
    expect([...recalled[0].sources!].sort()).toEqual([...insight.sources!].sort());

    // "其实我现在挺喜欢自己运维服务器的" corrects t2: two statements are left, the insight is retracted.
    const corrected = await say('laozhou', [
      { turnId: 't4', text: '其实我现在挺喜欢自己运维服务器的', occurredAt: '2026-12-01T09:00:00Z' },
    ]);
    const afterCorrection = await recall('laozhou', '数据库要不要自己运维', corrected);
    expect(afterCorrection.some((m) => m.kind === 'insight')).toBe(false);
    expect(insightsOf(await memories('laozhou'))).toEqual([
      expect.objectContaining({ memoryId: insight.memoryId, status: 'retracted', version: 1 }),
    ]);

    // A new reason brings it back: the same insight, version 2, the first version kept in its history.
    const more = await say('laozhou', [{ turnId: 't5', text: '我们还是想用托管数据库', occurredAt: '2026-12-02T09:00:00Z' }]);
    const again = await recall('laozhou', '数据库要不要自己运维', more);
    const [rederived] = insightsOf(await memories('laozhou'));
    expect(rederived).toMatchObject({ memoryId: insight.memoryId, status: 'active', version: 2 });
    expect(rederived.content).toBe(
      '偏好省心、免运维的托管服务（依据：我们团队只有三个人，人手不够；云数据库太贵了；我们还是想用托管数据库）',
    );
    expect(rederived.history).toEqual([expect.objectContaining({ version: 1, sources: insight.sources })]);
    expect([...rederived.sourceTurnIds].sort()).toEqual(['t1', 't3', 't5']);
    expect(again.find((m) => m.kind === 'insight')).toMatchObject({ id: insight.memoryId });
  });

  it('English: the insight is in English; correcting a source retracts it', async () => {
    const position = await say('mary', [
      { turnId: 'e1', text: 'Our team is small', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 'e2', text: "I don't want to run my own servers", occurredAt: '2026-11-30T08:01:00Z' },
      { turnId: 'e3', text: 'The cloud database bill is too expensive', occurredAt: '2026-11-30T08:02:00Z' },
    ]);
    const recalled = await recall('mary', 'should we run our own database servers', position);
    const [insight] = insightsOf(await memories('mary'));
    expect(insight).toMatchObject({
      mergeKey: 'insight:low-maintenance',
      status: 'active',
      content:
        "Prefers low-maintenance managed services (based on: Our team is small; I don't want to run my own servers; The cloud database bill is too expensive)",
    });
    expect([...insight.sourceTurnIds].sort()).toEqual(['e1', 'e2', 'e3']);
    expect(recalled[0]).toMatchObject({ id: insight.memoryId, kind: 'insight' });
    expect(recalled[0].sources).toEqual(insight.sources);

    // "Actually our team is big now" supersedes "Our team is small".
    const corrected = await say('mary', [{ turnId: 'e4', text: 'Actually our team is big now', occurredAt: '2026-12-01T09:00:00Z' }]);
    expect((await recall('mary', 'should we run our own database servers', corrected)).some((m) => m.kind === 'insight')).toBe(false);
    expect(insightsOf(await memories('mary'))).toEqual([expect.objectContaining({ memoryId: insight.memoryId, status: 'retracted' })]);
  });

  it("does not derive an insight from two statements, nor from another user's", async () => {
    const position = await say('li', [
      { turnId: 'l1', text: '我们团队只有三个人，人手不够', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 'l2', text: '我不想自己运维服务器', occurredAt: '2026-11-30T08:01:00Z' },
    ]);
    const other = await say('wang', [{ turnId: 'w1', text: '云数据库太贵了', occurredAt: '2026-11-30T08:02:00Z' }]);
    await recall('li', '数据库', position);
    await recall('wang', '数据库', other);
    expect(insightsOf(await memories('li'))).toEqual([]);
    expect(insightsOf(await memories('wang'))).toEqual([]);
  });

  it('export carries the insight with its sources; an import links them to the imported memories; a rebuild reproduces it', async () => {
    const position = await say('laozhou', [
      { turnId: 't1', text: '我们团队只有三个人，人手不够', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', text: '我不想自己运维服务器', occurredAt: '2026-11-30T08:01:00Z' },
      { turnId: 't3', text: '云数据库太贵了', occurredAt: '2026-11-30T08:02:00Z' },
    ]);
    await recall('laozhou', '数据库', position);
    const bundle = (await engram.http().get('/v1/users/laozhou/export').expect(200)).body;
    const exported = bundle.memories.filter((m: Memory) => m.kind === 'insight');
    expect(exported).toHaveLength(1);
    const bundleIds = bundle.memories
      .filter((m: Memory) => m.kind !== 'insight')
      .map((m: Memory) => m.memoryId)
      .sort();
    expect([...exported[0].sources].sort()).toEqual(bundleIds);

    other = await startEngram();
    const imported = await other.http().post('/v1/users/laozhou/import').send(bundle).expect(200);
    expect(imported.body).toMatchObject({ added: bundle.memories.length, consistent: true });
    const there = await memories('laozhou', other);
    const [insightThere] = insightsOf(there);
    // Linked to the imported memories (re-keyed ids), and not re-derived: the support is the same.
    expect([...insightThere.sources!].sort()).toEqual(
      there
        .filter((m) => m.kind !== 'insight')
        .map((m) => m.memoryId)
        .sort(),
    );
    expect(insightThere).toMatchObject({ content: exported[0].content, version: 1, status: 'active' });
    expect(insightsOf(there)).toHaveLength(1);
    const recalledThere = await recall('laozhou', '数据库要不要自己运维', undefined, other);
    expect(recalledThere[0]).toMatchObject({ id: insightThere.memoryId, kind: 'insight' });

    // Rebuilding from the log gives the same memories, the insight included.
    const before = await memories('laozhou');
    await engram.stop();
    await rebuildOffline(engram.dataDir);
    engram = await startEngram({ dataDir: engram.dataDir });
    expect(await memories('laozhou')).toEqual(before);
  });

  it('takes extra rules from ENGRAM_INSIGHT_RULES (a file), and derives none with ENGRAM_INSIGHTS=false', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-insight-rules-'));
    const file = path.join(dir, 'rules.json');
    fs.writeFileSync(
      file,
      JSON.stringify([
        { id: 'tea-lover', label: { zh: '爱喝茶', en: 'Loves tea' }, minSupport: 2, groups: [{ id: 'tea', cues: ['绿茶', 'oolong'] }] },
      ]),
    );
    const tea: TurnInput[] = [
      { turnId: 'c1', text: '我喜欢喝绿茶', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 'c2', text: 'I prefer oolong in the afternoon', occurredAt: '2026-11-30T08:01:00Z' },
    ];
    try {
      other = await startEngram({ env: { ENGRAM_INSIGHT_RULES: file } });
      await recall('chen', '喝什么茶', await say('chen', tea, other), other);
      // One statement in each language: a tie goes to the newest statement's (English).
      expect(insightsOf(await memories('chen', other))).toEqual([
        expect.objectContaining({
          mergeKey: 'insight:tea-lover',
          status: 'active',
          content: 'Loves tea (based on: 我喜欢喝绿茶; I prefer oolong in the afternoon)',
        }),
      ]);
      await other.destroy();

      other = await startEngram({ env: { ENGRAM_INSIGHT_RULES: file, ENGRAM_INSIGHTS: 'false' } });
      await recall('chen', '喝什么茶', await say('chen', tea, other), other);
      expect((await memories('chen', other)).length).toBeGreaterThan(0);
      expect(insightsOf(await memories('chen', other))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad insight rules at start-up, naming the variable and the field', async () => {
    await expect(startEngram({ env: { ENGRAM_INSIGHT_RULES: '[{"id":"x","label":{"zh":"x","en":"x"},"groups":[]}]' } })).rejects.toThrow(
      /ENGRAM_INSIGHT_RULES\[0\]\.groups/,
    );
    await expect(startEngram({ env: { ENGRAM_INSIGHT_MIN_SUPPORT: '1' } })).rejects.toThrow(/ENGRAM_INSIGHT_MIN_SUPPORT/);
  });
});
