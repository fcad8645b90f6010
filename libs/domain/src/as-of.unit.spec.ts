import type { MemoryRecord } from '@engram/contracts';
import { memoriesAsOf, memoryAsOf, versionsOf } from './as-of';
import { memory } from './testing/fixtures';

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

describe('as of an instant', () => {
  it('answers the value engram held then, with no history yet', () => {
    const then = memoryAsOf(budget, '2026-12-01T00:00:00.000Z')!;
    expect(then).toMatchObject({ value: '三万', content: '预算控制在三万以内', version: 1, status: 'active', sourceTurnIds: ['t1'], history: [] });
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
    const retracted = memory({ status: 'retracted', revision: 2, updatedAt: '2026-12-10T00:00:00.000Z', validTo: '2026-12-10T00:00:00.000Z' });
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
