import { aMemoryRecord } from '@engram/testing';
import { diffMemories, formatDiff, parseFactsVersion } from './diff-projections';

describe('diffMemories', () => {
  const editor = aMemoryRecord({ memoryId: 'm-editor', attribute: 'editor', value: 'VS Code', content: 'I prefer VS Code' });
  const budget = aMemoryRecord({ memoryId: 'm-budget', attribute: 'budget', kind: 'fact', value: '三万', content: '预算三万' });
  const city = aMemoryRecord({ memoryId: 'm-city', attribute: 'city', kind: 'fact', value: 'Berlin', content: 'I live in Berlin' });

  it('pairs by id, then by merge key, and names the fields that differ', () => {
    const after = [
      editor, // same id, same fields
      { ...budget, memoryId: 'other-id', value: '三万以内', content: '用户的预算控制在三万以内。' }, // another extractor's id
      aMemoryRecord({ memoryId: 'm-role', attribute: 'role', kind: 'profile', value: 'engineer', content: 'The user is an engineer.' }),
      { ...city, status: 'retracted' as const, kind: 'profile' as const },
    ];
    const diff = diffMemories([editor, budget, city], after);
    expect(diff.unchanged).toBe(1);
    expect(diff.removed).toEqual([]);
    expect(diff.added.map((m) => m.memoryId)).toEqual(['m-role']);
    expect(diff.changed.map((c) => [c.mergeKey, c.fields, c.before.memoryId, c.after.memoryId])).toEqual([
      ['user/budget', ['value', 'content'], 'm-budget', 'other-id'],
      ['user/city', ['status', 'kind'], 'm-city', 'm-city'],
    ]);
  });

  it('reports memories only one side holds as added or removed', () => {
    const diff = diffMemories([editor, budget], [city]);
    expect(diff.removed.map((m) => m.memoryId)).toEqual(['m-editor', 'm-budget']);
    expect(diff.added.map((m) => m.memoryId)).toEqual(['m-city']);
    expect(diff.changed).toEqual([]);
    expect(diff.unchanged).toBe(0);
  });

  it('formats a readable listing and parses version names', () => {
    const diff = diffMemories([budget], [{ ...budget, value: '五万', content: '预算五万' }]);
    const text = formatDiff({
      a: 1,
      b: 2,
      totals: { users: 1, added: 0, removed: 0, changed: 1, unchanged: 0 },
      users: [{ tenantId: 't', userId: 'u', ...diff }],
    });
    expect(text).toContain('facts@1 → facts@2: 1 users, 0 added, 0 removed, 1 changed, 0 unchanged');
    expect(text).toContain('value: "三万" → "五万"');
    expect([parseFactsVersion('facts@3', 1), parseFactsVersion('2', 1), parseFactsVersion('active', 4)]).toEqual([3, 2, 4]);
    expect(() => parseFactsVersion('search@2', 1)).toThrow('a version is facts@<n>, <n> or active, not "search@2"');
  });
});
