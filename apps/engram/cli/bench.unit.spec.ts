import {
  addCounts,
  compareSnapshots,
  parseProcessCpuSeconds,
  parseStoreRequests,
  storeRequestRates,
  probeStatement,
  seededRandom,
  snapshotMemories,
  snapshotRecall,
  streamSeed,
  summariseLatencies,
  userStatements,
  workloadQueries,
  workloadRequests,
  type UserSnapshot,
  type WorkloadOptions,
} from './bench';
import { EngramMetrics } from '@engram/services/observability/metrics';

const HAN = /\p{Script=Han}/u;

describe('bench workload', () => {
  const options: WorkloadOptions = { turns: 95, users: 4, seed: 7, turnsPerRequest: 10 };
  const all = (o: WorkloadOptions = options) => [...workloadRequests(o)];

  it('is the same for the same seed, and different for another', () => {
    expect(all()).toEqual(all());
    expect(workloadQueries(options, 20)).toEqual(workloadQueries(options, 20));
    const texts = (o: WorkloadOptions) => all(o).flatMap((r) => r.turns.map((t) => t.text));
    expect(texts({ ...options, seed: 8 })).not.toEqual(texts(options));
  });

  it('gives a user the same turns whatever the other users and the request size', () => {
    const ofUser = (requests: ReturnType<typeof all>, userId: string) =>
      requests.filter((r) => r.userId === userId).flatMap((r) => r.turns.map((t) => [t.turnId, t.text]));
    const base = all();
    expect(ofUser(all({ ...options, turnsPerRequest: 3 }), 'bench-u2')).toEqual(ofUser(base, 'bench-u2'));
    expect(userStatements(7, 2, 24).map((s) => s.text)).toEqual(ofUser(base, 'bench-u2').map(([, text]) => text));
  });

  it('spreads exactly the asked turns over the users, sessions interleaved, ids unique per user', () => {
    const requests = all();
    expect(requests.reduce((n, r) => n + r.turns.length, 0)).toBe(95);
    const perUser = new Map<string, string[]>();
    for (const r of requests) perUser.set(r.userId, [...(perUser.get(r.userId) ?? []), ...r.turns.map((t) => t.turnId)]);
    expect([...perUser.keys()]).toEqual(['bench-u0', 'bench-u1', 'bench-u2', 'bench-u3']);
    expect([...perUser.values()].map((ids) => ids.length)).toEqual([24, 24, 24, 23]);
    for (const ids of perUser.values()) expect(new Set(ids).size).toBe(ids.length);
    expect(requests.slice(0, 5).map((r) => [r.userId, r.sessionId])).toEqual([
      ['bench-u0', 's0'],
      ['bench-u1', 's0'],
      ['bench-u2', 's0'],
      ['bench-u3', 's0'],
      ['bench-u0', 's1'],
    ]);
    expect(
      requests.every((r) => r.turns.length <= 10 && r.turns.every((t) => t.role === 'user' && !Number.isNaN(Date.parse(t.occurredAt)))),
    ).toBe(true);
  });

  it('is bilingual and varied', () => {
    const texts = all({ turns: 2000, users: 10, seed: 1 }).flatMap((r) => r.turns.map((t) => t.text));
    const chinese = texts.filter((t) => HAN.test(t)).length;
    expect(chinese / texts.length).toBeGreaterThan(0.35);
    expect(chinese / texts.length).toBeLessThan(0.65);
    // Within a user, most turns say something new (repeats reinforce a memory, as in real chats).
    const ofOneUser = userStatements(1, 0, 100).map((s) => s.text);
    expect(new Set(ofOneUser).size).toBeGreaterThan(70);
  });

  it('asks questions of users that exist, in the language of what they said', () => {
    const queries = workloadQueries(options, 50);
    expect(queries.every((q) => /^bench-u[0-3]$/.test(q.userId) && q.query.length > 0)).toBe(true);
    expect(queries.some((q) => HAN.test(q.query))).toBe(true);
    expect(queries.some((q) => !HAN.test(q.query))).toBe(true);
  });

  it('gives every freshness probe its own marker word', () => {
    const probes = Array.from({ length: 200 }, (_, n) => probeStatement(3, n));
    expect(new Set(probes.map((p) => p.marker)).size).toBe(200);
    expect(probes.every((p) => p.text.includes(p.marker) && p.topic === p.marker)).toBe(true);
    expect(probeStatement(3, 5)).toEqual(probeStatement(3, 5));
  });
});

describe('seeded random numbers', () => {
  it('repeat for a seed, differ between seeds and streams, and stay in [0, 1)', () => {
    const draw = (seed: number) => Array.from({ length: 1000 }, seededRandom(seed));
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(streamSeed(1, 'user', 1)).not.toBe(streamSeed(1, 'user', 2));
    expect(streamSeed(1, 'user', 1)).toBe(streamSeed(1, 'user', 1));
    const values = draw(42);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});

describe('summariseLatencies', () => {
  it('takes nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose
    expect(summariseLatencies(hundred)).toEqual({ p50: 50, p95: 95, p99: 99, max: 100, mean: 50.5, samples: 100 });
  });

  it('handles one sample, small lists and rounding', () => {
    expect(summariseLatencies([3.14159])).toEqual({ p50: 3.14, p95: 3.14, p99: 3.14, max: 3.14, mean: 3.14, samples: 1 });
    // 10 samples: p50 is the 5th, p95 and p99 the 10th.
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(summariseLatencies(ten)).toMatchObject({ p50: 5, p95: 10, p99: 10 });
    // 200 samples: p99 is the 198th, so two outliers do not hide it.
    const twoHundred = [...Array.from({ length: 198 }, () => 1), 500, 900];
    expect(summariseLatencies(twoHundred)).toMatchObject({ p50: 1, p95: 1, p99: 1, max: 900 });
  });

  it('is all zeros without samples', () => {
    expect(summariseLatencies([])).toEqual({ p50: 0, p95: 0, p99: 0, max: 0, mean: 0, samples: 0 });
  });
});

describe('online rebuild comparison', () => {
  type Document = Parameters<typeof snapshotMemories>[0][number];
  const memory = (id: string, overrides: Partial<Document> & { updatedAt?: string; revision?: number } = {}) => ({
    memoryId: id,
    kind: 'preference' as const,
    status: 'active' as const,
    value: '拿铁',
    content: '我喜欢喝拿铁',
    version: 2,
    mentionCount: 3,
    history: [{ value: '美式咖啡', validFrom: '2026-01-01T00:00:00.000Z' }],
    // processing timestamps and bookkeeping differ between builds and must not count
    updatedAt: '2026-11-30T12:00:00.000Z',
    revision: 7,
    ...overrides,
  });
  const user = (memories: ReturnType<typeof memory>[], recall = { memoryIds: ['m1'], recentTurnIds: ['t0', 't1'] }): UserSnapshot => ({
    memories: snapshotMemories(memories),
    recall,
  });

  it('reduces memories to what must be equal, ordered by id', () => {
    expect(snapshotMemories([memory('m2', { status: 'retracted' }), memory('m1')])).toEqual([
      {
        id: 'm1',
        kind: 'preference',
        status: 'active',
        value: '拿铁',
        content: '我喜欢喝拿铁',
        version: 2,
        mentionCount: 3,
        history: ['美式咖啡'],
      },
      {
        id: 'm2',
        kind: 'preference',
        status: 'retracted',
        value: '拿铁',
        content: '我喜欢喝拿铁',
        version: 2,
        mentionCount: 3,
        history: ['美式咖啡'],
      },
    ]);
  });

  it('takes the set of memories recall returned and the recent turns in order', () => {
    const view = (id: string) => ({ id }) as never;
    expect(
      snapshotRecall({
        facts: [view('b')],
        memories: [view('c'), view('a'), view('b')],
        recent: [{ turnId: 't2' }, { turnId: 't1' }] as never,
      }),
    ).toEqual({ memoryIds: ['a', 'b', 'c'], recentTurnIds: ['t2', 't1'] });
  });

  it('finds equal dumps equal, whatever the processing timestamps and the order memories were listed in', () => {
    const left = { 'bench-u0': user([memory('m1'), memory('m2')]) };
    const right = { 'bench-u0': user([memory('m2', { updatedAt: '2026-11-30T13:00:00.000Z', revision: 9 }), memory('m1')]) };
    expect(compareSnapshots(left, right)).toEqual({
      equal: true,
      users: 1,
      memories: { left: 2, right: 2 },
      differenceCount: 0,
      differences: [],
    });
  });

  it('names every field that differs, memories on one side only, users on one side only and recall answers', () => {
    const left = {
      'bench-u0': user([memory('m1'), memory('m2'), memory('m3')]),
      'bench-u1': user([memory('m9')]),
    };
    const right = {
      'bench-u0': user(
        [memory('m1', { value: '乌龙茶', mentionCount: 4 }), memory('m2', { history: [] }), memory('m4', { kind: 'fact' as never })],
        { memoryIds: ['m1', 'm4'], recentTurnIds: ['t1', 't0'] },
      ),
      'bench-u2': user([]),
    };
    const result = compareSnapshots(left, right);
    expect(result.equal).toBe(false);
    expect(result.differences).toEqual([
      'bench-u0 m1: value "拿铁" ≠ "乌龙茶"',
      'bench-u0 m1: mentionCount 3 ≠ 4',
      'bench-u0 m2: history ["美式咖啡"] ≠ []',
      'bench-u0 m3: only in the first dump (preference "拿铁")',
      'bench-u0 m4: only in the second dump (fact "拿铁")',
      'bench-u0: recall memories ["m1"] ≠ ["m1","m4"]',
      'bench-u0: recall recent turns ["t0","t1"] ≠ ["t1","t0"]',
      'bench-u1: only in the first dump',
      'bench-u2: only in the second dump',
    ]);
    expect(result.differenceCount).toBe(9);
    expect(result.memories).toEqual({ left: 4, right: 3 });
  });

  it('lists only the first differences but counts them all', () => {
    const many = (value: string) => ({
      'bench-u0': user(Array.from({ length: 30 }, (_, i) => memory(`m${String(i).padStart(2, '0')}`, { value }))),
    });
    const result = compareSnapshots(many('a'), many('b'), 5);
    expect(result.differences).toHaveLength(5);
    expect(result.differences[0]).toBe('bench-u0 m00: value "a" ≠ "b"');
    expect(result.differenceCount).toBe(30);
  });
});

describe('store requests from /metrics', () => {
  const exposition = (find: number, bulk: number) =>
    [
      '# HELP engram_store_requests_total Requests sent to a store',
      '# TYPE engram_store_requests_total counter',
      `engram_store_requests_total{store="mongodb",operation="find"} ${find}`,
      'engram_store_requests_total{store="mongodb",operation="update"} 4',
      `engram_store_requests_total{store="elasticsearch",operation="POST /{index}/_bulk"} ${bulk}`,
      'engram_store_requests_total_created{store="mongodb",operation="find"} 1700000000',
      'engram_events_published_total{topic="memory.turns.v1"} 99',
    ].join('\n');

  it('sums the samples per store and per store and operation, and nothing else', () => {
    expect(parseStoreRequests(exposition(10, 2))).toEqual({
      mongodb: 14,
      'mongodb find': 10,
      'mongodb update': 4,
      elasticsearch: 2,
      'elasticsearch POST /{index}/_bulk': 2,
    });
    expect(parseStoreRequests('engram_process_cpu_seconds_total 3')).toEqual({});
  });

  it("reads a process's CPU seconds from engram's own metrics, as a server exposes them", async () => {
    const exposition = await new EngramMetrics().registry.metrics();
    const cpu = parseProcessCpuSeconds(exposition);
    expect(cpu).toBeGreaterThan(0);
    const used = process.cpuUsage();
    expect(cpu).toBeLessThanOrEqual((used.user + used.system) / 1e6 + 0.01);
    expect(parseProcessCpuSeconds(exposition.replace(/^engram_process_process_cpu_seconds_total.*$/m, ''))).toBe(0);
  });

  it("adds the processes' counts", () => {
    expect(addCounts([parseStoreRequests(exposition(10, 2)), parseStoreRequests(exposition(1, 0))])).toMatchObject({
      mongodb: 19,
      'mongodb find': 11,
      elasticsearch: 2,
    });
  });

  it('divides the difference by the work done, per 1,000 turns or per question, operations most first', () => {
    const before = parseStoreRequests(exposition(10, 2));
    const after = parseStoreRequests(exposition(60, 7));
    expect(storeRequestRates(before, after, 500, 1000)).toEqual({
      mongodb: 100,
      elasticsearch: 10,
      kafka: 0,
      operations: { 'mongodb find': 100, 'elasticsearch POST /{index}/_bulk': 10 },
    });
    expect(storeRequestRates(before, after, 3).mongodb).toBe(16.67);
  });
});
