import { aMemoryRecord } from '@engram/testing';
import { defaultAliasTable, learnAliasesFromTurns } from '../text/entity-aliases';
import { glossesAName, learnedAliasTable } from './learned-aliases';

describe('learned aliases: what a user glosses, read from the memories that gloss', () => {
  it('tells a memory that glosses a name from one that does not, in every parenthesis form', () => {
    expect(glossesAName({ kind: 'fact', content: '主库是白鲸（Blackwhale）' })).toBe(true);
    expect(glossesAName({ kind: 'fact', content: 'we use pg (aka PostgreSQL)' })).toBe(true);
    expect(glossesAName({ kind: 'fact', content: '主库是白鲸﹙Blackwhale﹚' })).toBe(true); // small parentheses, NFKC "("
    expect(glossesAName({ kind: 'fact', content: '主库是白鲸' })).toBe(false);
    expect(glossesAName({ kind: 'fact', content: 'call [PHONE]（12）, ok :)' })).toBe(false);
    expect(glossesAName({ kind: 'summary', content: '主库是白鲸（Blackwhale）' })).toBe(false);
  });

  it('counts a pair once per turn, whichever of its texts says it', () => {
    const turn = ['白鲸（Blackwhale）', '主库：白鲸（Blackwhale）'];
    expect(learnAliasesFromTurns([turn], defaultAliasTable, 2)).toBe(defaultAliasTable);
    expect(learnAliasesFromTurns([turn, ['白鲸（Blackwhale）要升级']], defaultAliasTable, 2).canonicalOf.get('白鲸')).toBe('Blackwhale');
  });

  it('learns the same from the glossing memories alone as from all of them, and nothing from a summary', () => {
    const memory = (memoryId: string, content: string, turn: string, kind: 'fact' | 'episode' | 'summary' = 'fact') =>
      aMemoryRecord({ memoryId, mergeKey: memoryId, content, kind, sourceTurnIds: [turn] });
    const all = [
      memory('a', '白鲸（Blackwhale）', 't1'),
      memory('b', '主库是白鲸', 't1'),
      memory('c', '白鲸（Blackwhale）升级', 't2', 'episode'),
      memory('d', '白鲸（Blackwhale）；大象库（PostgreSQL）', 't3', 'summary'),
      memory('e', '大象库（PostgreSQL）', 't4'),
    ];
    const table = learnedAliasTable(defaultAliasTable, 2, all);
    expect(table).toEqual(learnedAliasTable(defaultAliasTable, 2, all.filter(glossesAName)));
    expect(table.canonicalOf.get('白鲸')).toBe('Blackwhale');
    expect(table.canonicalOf.get('大象库')).toBeUndefined();
    expect(learnedAliasTable(defaultAliasTable, 0, all)).toBe(defaultAliasTable);
  });
});
