import type { MemoryRecord } from '@engram/contracts';
import { assembleContext } from '@engram/domain';
import { isHistoryLine, parseTruthDataset, scoreCheck, summarise, type CheckResult } from './eval-truth';
import { LineError } from './turn-lines';

const turn = (turnId: string, text: string) =>
  JSON.stringify({ type: 'turn', userId: 'u1', sessionId: 's1', turnId, role: 'user', text, occurredAt: '2026-11-01T09:00:00Z' });
const check = (checkId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'check',
    userId: 'u1',
    checkId,
    category: 'change-of-mind',
    query: '给我推荐一个饮食方案',
    askedAt: '2026-11-03T09:00:00Z',
    expect: ['低卡'],
    reject: ['高热量'],
    ...extra,
  });

describe('eval-truth', () => {
  describe('the scenario file', () => {
    it('given turns and checks, then both are read, checks with their alternatives', () => {
      const dataset = parseTruthDataset(
        [turn('t1', '我喜欢高热量的饮食方案'), check('c1', { expect: [['低卡', 'low-calorie'], '方案'] })].join('\n'),
      );
      expect(dataset.turns.map((t) => t.turnId)).toEqual(['t1']);
      expect(dataset.checks[0]).toMatchObject({ checkId: 'c1', expect: [['低卡', 'low-calorie'], '方案'], reject: ['高热量'] });
    });

    it('given a bad check, then the error names its line and field', () => {
      expect(() => parseTruthDataset([turn('t1', 'x'), check('c1', { askedAt: 'yesterday' })].join('\n'))).toThrow(/line 2: askedAt/);
      expect(() => parseTruthDataset(check('c1', { expect: [[]] }))).toThrow(LineError);
      expect(() => parseTruthDataset(check('c1', { expect: [], reject: [] }))).toThrow(/needs expect, reject or once/);
      expect(() => parseTruthDataset([check('c1'), check('c1')].join('\n'))).toThrow(/line 2: checkId "c1" repeats line 1/);
      expect(() => parseTruthDataset(JSON.stringify({ type: 'question' }))).toThrow(/unknown line type/);
    });
  });

  describe('a check against a context block', () => {
    const context = ['<memories>', '- [2026-11-25] 我要低卡方案', '- 以前：高热量（11-23），11-25 改为低卡', '</memories>'].join('\n');

    it('given the new value and the old one only as history, then it passes', () => {
      expect(scoreCheck(context, ['低卡'], ['高热量'])).toEqual({ passed: true, missing: [], stale: [], repeated: [] });
    });

    it('given the old value on a current line, then it is stale', () => {
      expect(scoreCheck(`${context}\n- 我喜欢高热量的饮食方案`, ['低卡'], ['高热量'])).toEqual({
        passed: false,
        missing: [],
        stale: ['高热量'],
        repeated: [],
      });
    });

    it("given none of an entry's alternatives, then it is missing; one of them will do; case and width are folded", () => {
      expect(scoreCheck(context, [['low-calorie', 'LOW CAL']], [])).toEqual({
        passed: false,
        missing: ['low-calorie | LOW CAL'],
        stale: [],
        repeated: [],
      });
      expect(scoreCheck('I want the Low-Calorie plan', [['low-calorie', '低卡']], []).passed).toBe(true);
      expect(scoreCheck('ＶＳ Ｃｏｄｅ', ['vs code'], []).passed).toBe(true);
    });

    it('given a once string on two current lines, then it is repeated; once, or once more as history, passes', () => {
      const twice = '- 我喜欢喝乌龙茶\n- 乌龙茶是我最爱的茶';
      expect(scoreCheck(twice, ['乌龙'], [], ['乌龙'])).toEqual({ passed: false, missing: [], stale: [], repeated: ['乌龙'] });
      expect(scoreCheck('- 我喜欢喝乌龙茶\n- 以前：绿茶（10-01）', ['乌龙'], [], ['乌龙', '绿茶']).passed).toBe(true);
    });

    it('knows the history markers in both languages', () => {
      expect(isHistoryLine('- 以前：高热量（11-23）')).toBe(true);
      expect(isHistoryLine('- formerly: Porto (2026-10-02), Lisbon since 2026-11-20')).toBe(true);
      expect(isHistoryLine('- I live in Porto')).toBe(false);
    });

    it('reads the context block as engram writes it: a previous value on its own history line, a contradicted one still current', () => {
      const versionOf = (value: string, content: string) => ({
        version: 1,
        value,
        content,
        validFrom: '2026-11-01T09:00:00.000Z',
        validTo: '2026-11-04T09:00:00.000Z',
        recordedAt: '2026-11-01T09:00:00.000Z',
        supersededAt: '2026-11-04T09:00:00.000Z',
        sourceTurnIds: ['t1'],
      });
      const fact = (memoryId: string, content: string, previous: string, conflict: boolean): MemoryRecord => ({
        ...{ tenantId: 't', userId: 'u1', memoryId, mergeKey: `user/${memoryId}`, kind: 'profile', subject: 'user', attribute: memoryId },
        ...{ value: 'none', content, entities: [], confidence: 0.85, importance: 0.9, ephemeral: false, pinned: true, status: 'active' },
        ...{ version: 2, revision: 2, mentionCount: 1, sourceTurnIds: ['t2'], appliedItemIds: ['i1', 'i2'], validTo: null },
        ...{ validFrom: '2026-11-04T09:00:00.000Z', createdAt: '2026-11-01T09:00:00.000Z', updatedAt: '2026-11-04T09:00:00.000Z' },
        ...{ lastSeenAt: '2026-11-04T09:00:00.000Z', history: [versionOf(previous, previous)] },
        ...(conflict
          ? {
              conflict: {
                previousVersion: 1,
                previousValue: previous,
                previousContent: previous,
                previousFrom: '2026-11-01T09:00:00.000Z',
                since: '2026-11-04T09:00:00.000Z',
              },
            }
          : {}),
      });
      const { context } = assembleContext({
        facts: [fact('zh', '我可以用青霉素', '我对青霉素过敏', true), fact('en', 'I live in Lisbon', 'I live in Porto', false)],
        memories: [],
        recent: [],
        tokenBudget: 1000,
        now: new Date('2026-11-10T00:00:00.000Z'),
      });
      expect(scoreCheck(context, ['可以用青霉素', 'Lisbon', '对青霉素过敏', 'Porto'], ['对青霉素过敏', 'Porto']).passed).toBe(true);
      expect(scoreCheck(context, [], ['可以用青霉素', 'Lisbon']).stale).toEqual(['可以用青霉素', 'Lisbon']);
    });
  });

  it('summarises by category', () => {
    const result = (category: string, passed: boolean): CheckResult => ({
      checkId: `${category}-${passed}`,
      userId: 'u1',
      category,
      query: 'q',
      context: '',
      passed,
      missing: [],
      stale: [],
      repeated: [],
    });
    expect(summarise([result('a', true), result('a', false), result('b', true)])).toEqual({
      checks: 3,
      passed: 2,
      passRate: 0.667,
      byCategory: { a: { checks: 2, passed: 1, passRate: 0.5 }, b: { checks: 1, passed: 1, passRate: 1 } },
    });
  });
});
