import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { parseEvent, type MemoryRecord } from '@engram/contracts';
import { ResolutionDecider, type ResolverState } from '../resolution/resolution.decider';
import { SummaryDecider, summaryLines, summaryMergeKey, type SummaryOptions } from './session-summary';
import { memory, TENANT, USER } from '../testing/fixtures';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString();
const episode = (turn: number, content: string, session = 's1', subject = 'user'): MemoryRecord =>
  memory({
    memoryId: `e-${session}-${turn}`,
    kind: 'episode',
    subject,
    attribute: `episode:${session}:t${turn}`,
    mergeKey: `${subject}/episode:${session}:t${turn}`,
    value: '',
    content,
    sourceTurnIds: [`t${turn}`],
    validFrom: at(turn),
  });
const fact = (turn: number, content: string, overrides: Partial<MemoryRecord> = {}): MemoryRecord =>
  memory({
    memoryId: `f-${turn}`,
    kind: 'decision',
    attribute: `a${turn}`,
    content,
    sourceTurnIds: [`t${turn}`],
    validFrom: at(turn),
    ...overrides,
  });
const options: SummaryOptions = { window: 3, every: 2, maxChars: 2000, recordedAt: '2026-11-27T10:00:00.000Z' };
const review = (trigger = 'x-1', sessionId = 's1') => ({
  tenantId: TENANT,
  userId: USER,
  sessionId,
  triggerId: trigger,
  correlationId: `c-${trigger}`,
});
const stateOf = (...memories: MemoryRecord[]): ResolverState => new Map(memories.map((m) => [m.memoryId, m]));

describe('SummaryDecider', () => {
  const said = [
    episode(1, '我们讨论一下数据库迁移'),
    episode(2, '决定用 PostgreSQL'),
    episode(3, '好的，我来准备迁移脚本', 's1', 'assistant'),
    episode(4, '第一步是全量备份'),
    episode(5, '然后做增量同步'),
    episode(6, '最后切换流量'),
  ];

  it('given fewer than `every` turns out of the window, then no summary', () => {
    expect(SummaryDecider.decide(review(), stateOf(...said.slice(0, 4)), options)).toEqual([]);
  });

  it('given `every` turns out of the window, then a summary of them in order, each told by its memories or its words', () => {
    const state = stateOf(...said.slice(0, 5), fact(2, '决定用 PostgreSQL 作为新数据库'));
    const [added] = SummaryDecider.decide(review(), state, options);
    expect(added.type).toBe('MemoryAdded');
    expect(() => parseEvent(JSON.parse(JSON.stringify(added)))).not.toThrow();
    expect(added.payload.memory).toMatchObject({
      kind: 'summary',
      subject: 'session',
      mergeKey: summaryMergeKey('s1'),
      value: '2',
      sourceTurnIds: ['t1', 't2'],
      pinned: false,
      status: 'active',
    });
    expect(summaryLines(added.payload.memory)).toEqual([
      '[11-27 09:01] user: 我们讨论一下数据库迁移',
      '[11-27 09:02] 决定用 PostgreSQL 作为新数据库',
    ]);
  });

  it('given more turns out of the window, then it is re-derived every `every` turns, as the next version of the same memory', () => {
    let state = stateOf(...said.slice(0, 5));
    const first = SummaryDecider.decide(review('x-1'), state, options);
    state = first.reduce(ResolutionDecider.evolve, state);
    state = new Map([...state, [said[5].memoryId, said[5]]]);
    expect(SummaryDecider.decide(review('x-2'), state, options)).toEqual([]); // one more only
    state = new Map([...state, ['e-s1-7', episode(7, '上线后观察一周')]]);
    const [next] = SummaryDecider.decide(review('x-3'), state, options);
    expect(next.type).toBe('MemorySuperseded');
    expect(next.payload.memory).toMatchObject({ memoryId: first[0].payload.memory.memoryId, version: 2, revision: 2, value: '4' });
    expect(summaryLines(next.payload.memory).map((l) => l.slice(14))).toEqual([
      'user: 我们讨论一下数据库迁移',
      'user: 决定用 PostgreSQL',
      'assistant: 好的，我来准备迁移脚本',
      'user: 第一步是全量备份',
    ]);
  });

  it('given the same state twice (a replay), then the same decision with the same id', () => {
    const state = stateOf(...said.slice(0, 5));
    expect(SummaryDecider.decide(review(), state, options)).toEqual(SummaryDecider.decide(review(), state, options));
  });

  it('keeps sessions apart, and says nothing with `every` 0', () => {
    const state = stateOf(...said.slice(0, 5), episode(1, 'other session', 's2'));
    const [decision] = SummaryDecider.decide(review(), state, options);
    expect(decision.payload.memory.content).not.toContain('other session');
    expect(SummaryDecider.decide(review('x', 's2'), state, options)).toEqual([]);
    expect(SummaryDecider.decide(review(), state, { ...options, every: 0 })).toEqual([]);
  });

  it('leaves out what was corrected since, and keeps memories before plain turns when it is too long', () => {
    const corrected = fact(2, '预算三万', { status: 'retracted' });
    const stated = { ...episode(2, '预算三万'), status: 'retracted' as const };
    const state = stateOf(said[0], stated, ...said.slice(2, 5), corrected);
    const [decision] = SummaryDecider.decide(review(), state, options);
    expect(decision.payload.memory.content).not.toContain('三万');
    const long = stateOf(
      ...Array.from({ length: 12 }, (_, i) => episode(i + 1, `第${i + 1}轮闲聊，说了很多与项目无关的话题和细节`)),
      fact(3, '决定用 PostgreSQL'),
    );
    const [tight] = SummaryDecider.decide(review(), long, { ...options, maxChars: 80 });
    const lines = summaryLines(tight.payload.memory);
    expect(tight.payload.memory.content.length).toBeLessThanOrEqual(80);
    expect(lines.some((l) => l.includes('决定用 PostgreSQL'))).toBe(true);
  });
});
