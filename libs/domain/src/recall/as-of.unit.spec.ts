import type { MemoryRecord } from '@engram/contracts';
import { memoriesAsOf, memoriesValidAt, memoryAsOf, memoryValidAt, versionsOf } from './as-of';
import { matchesRecallFilter } from './recall-filter';
import { memory } from '../testing/fixtures';

/** 三万 learned on Nov 30, corrected to 五万 on Dec 5. */
const budget: MemoryRecord = memory({
  kind: 'fact',
  attribute: 'budget',
  value: '五万',
  content: '预算提到五万了',
  version: 2,
  revision: 2,
  validFrom: '2026-12-05T08:00:00.000Z',
  createdAt: '2026-11-30T09:00:00.000Z',
  updatedAt: '2026-12-05T09:00:00.000Z',
  lastSeenAt: '2026-12-05T08:00:00.000Z',
  sourceTurnIds: ['t2'],
  history: [
    {
      version: 1,
      value: '三万',
      content: '预算控制在三万以内',
      validFrom: '2026-11-30T08:00:00.000Z',
      validTo: '2026-12-05T08:00:00.000Z',
      recordedAt: '2026-11-30T09:00:00.000Z',
      supersededAt: '2026-12-05T09:00:00.000Z',
      sourceTurnIds: ['t1'],
    },
  ],
});

describe('a memory in conflict, looked at in the past', () => {
  const contradicted: MemoryRecord = {
    ...budget,
    conflict: {
      previousVersion: 1,
      previousValue: '三万',
      previousContent: '预算控制在三万以内',
      previousFrom: '2026-11-30T08:00:00.000Z',
      since: '2026-12-05T08:00:00.000Z',
    },
  };

  it('given a view of the version it contradicts, then that view carries no conflict; the current one does', () => {
    expect(memoryAsOf(contradicted, '2026-12-01T00:00:00.000Z')!.conflict).toBeUndefined();
    expect(memoryValidAt(contradicted, '2026-12-01T00:00:00.000Z')!.conflict).toBeUndefined();
    expect(memoryAsOf(contradicted, '2026-12-06T00:00:00.000Z')!.conflict).toEqual(contradicted.conflict);
    expect(memoryValidAt(contradicted, '2026-12-06T00:00:00.000Z')!.conflict).toEqual(contradicted.conflict);
  });
});

describe('as of an instant', () => {
  it('answers the value engram held then, with no history yet', () => {
    const then = memoryAsOf(budget, '2026-12-01T00:00:00.000Z')!;
    expect(then).toMatchObject({
      value: '三万',
      content: '预算控制在三万以内',
      version: 1,
      status: 'active',
      sourceTurnIds: ['t1'],
      history: [],
    });
    expect(then.validTo).toBeNull();
  });

  it('answers the current value from the moment it was recorded', () => {
    expect(memoryAsOf(budget, '2026-12-05T09:00:00.000Z')).toMatchObject({ value: '五万', version: 2 });
    expect(memoryAsOf(budget, '2026-12-05T08:59:59.999Z')).toMatchObject({ value: '三万' });
    expect(memoryAsOf(budget, '2027-01-01T00:00:00.000Z')!.history.map((v) => v.value)).toEqual(['三万']);
  });

  it('knows nothing before the memory was created', () => {
    expect(memoryAsOf(budget, '2026-11-30T08:59:59.000Z')).toBeNull();
  });

  it('keeps a memory retracted (or archived, expired) later active before that decision', () => {
    const retracted = memory({
      status: 'retracted',
      revision: 2,
      updatedAt: '2026-12-10T00:00:00.000Z',
      validTo: '2026-12-10T00:00:00.000Z',
    });
    expect(memoryAsOf(retracted, '2026-12-09T00:00:00.000Z')).toMatchObject({ status: 'active', validTo: null });
    expect(memoryAsOf(retracted, '2026-12-10T00:00:00.000Z')).toBeNull();
    expect(memoriesAsOf([retracted, budget], '2026-12-01T00:00:00.000Z').map((m) => m.value)).toEqual(['VS Code', '三万']);
  });

  it('lists every version with its transaction-time interval', () => {
    expect(versionsOf(budget).map((v) => [v.value, v.recordedAt, v.supersededAt])).toEqual([
      ['三万', '2026-11-30T09:00:00.000Z', '2026-12-05T09:00:00.000Z'],
      ['五万', '2026-12-05T09:00:00.000Z', null],
    ]);
  });
});

/** The same budget, backfilled: every turn imported on Dec 20, so `asOf` cannot tell the values apart. */
const backfilled: MemoryRecord = {
  ...budget,
  createdAt: '2026-12-20T09:00:00.000Z',
  updatedAt: '2026-12-20T09:00:00.000Z',
  history: [{ ...budget.history[0], recordedAt: '2026-12-20T09:00:00.000Z', supersededAt: '2026-12-20T09:00:00.000Z' }],
};

describe('valid at an instant (world time)', () => {
  it('answers the value that held then according to the conversation, though engram learned both today', () => {
    expect(memoryValidAt(backfilled, '2026-12-03T00:00:00.000Z')).toMatchObject({
      value: '三万',
      version: 1,
      validTo: '2026-12-05T08:00:00.000Z',
      history: [],
    });
    expect(memoryValidAt(backfilled, '2026-12-05T08:00:00.000Z')).toMatchObject({ value: '五万', version: 2, validTo: null });
    expect(memoryValidAt(backfilled, '2026-11-30T07:59:59.000Z')).toBeNull(); // nothing said yet
    // asOf (transaction time) sees only today's value at any instant after the backfill.
    expect(memoryAsOf(backfilled, '2026-12-21T00:00:00.000Z')).toMatchObject({ value: '五万' });
  });

  it('holds a retracted memory until its retraction, never an archived or expired one', () => {
    const retracted = { ...budget, status: 'retracted' as const, validTo: '2026-12-10T00:00:00.000Z' };
    expect(memoryValidAt(retracted, '2026-12-09T00:00:00.000Z')).toMatchObject({ value: '五万', status: 'active' });
    expect(memoryValidAt(retracted, '2026-12-10T00:00:00.000Z')).toBeNull();
    expect(memoryValidAt({ ...budget, status: 'archived' }, '2026-12-09T00:00:00.000Z')).toBeNull();
    expect(memoryValidAt({ ...budget, status: 'expired' }, '2026-12-09T00:00:00.000Z')).toBeNull();
  });

  it('composes with asOf: what engram, as it knew it then, held true at another instant', () => {
    const [known] = memoriesAsOf([budget], '2026-12-01T00:00:00.000Z');
    expect(memoriesValidAt([known], '2026-12-30T00:00:00.000Z').map((m) => m.value)).toEqual(['三万']);
    expect(memoriesValidAt([budget], '2026-12-30T00:00:00.000Z').map((m) => m.value)).toEqual(['五万']);
  });
});

describe('recall filters', () => {
  const episode = memory({
    kind: 'episode',
    attribute: 'episode:s1:t1',
    sourceTurnIds: ['t1'],
    validFrom: '2026-10-03T08:00:00.000Z',
    lastSeenAt: '2026-10-03T08:00:00.000Z',
  });
  const reinforced = memory({
    kind: 'preference',
    sourceTurnIds: ['t1', 't9'],
    validFrom: '2026-09-01T00:00:00.000Z',
    lastSeenAt: '2026-10-20T00:00:00.000Z',
  });

  it('narrows by kind, by session turns and by when a memory was said', () => {
    expect(matchesRecallFilter(episode, { kinds: ['episode', 'fact'] })).toBe(true);
    expect(matchesRecallFilter(episode, { kinds: ['preference'] })).toBe(false);
    expect(matchesRecallFilter(reinforced, { turnIds: new Set(['t9']) })).toBe(true);
    expect(matchesRecallFilter(reinforced, { turnIds: new Set(['t2']) })).toBe(false);
    const october = { from: new Date('2026-10-01T00:00:00.000Z'), to: new Date('2026-11-01T00:00:00.000Z') };
    expect(matchesRecallFilter(episode, october)).toBe(true);
    expect(matchesRecallFilter(reinforced, october)).toBe(true); // said again on Oct 20
    expect(matchesRecallFilter(reinforced, { to: new Date('2026-09-01T00:00:00.000Z') })).toBe(false); // `to` is exclusive
    expect(matchesRecallFilter(episode, { ...october, kinds: ['preference'] })).toBe(false);
    expect(matchesRecallFilter(episode, {})).toBe(true);
  });
});
