import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { assembleContext, CONTEXT_PREAMBLE, type RecentTurn } from './context-assembly';
import type { RankedMemory } from './ranking';
import { memory } from './testing/fixtures';
import { countTokens } from './tokenizer';

const NOW = new Date('2026-12-01T00:00:00.000Z');
const fact = memory({ memoryId: 'f1', kind: 'profile', content: '我叫老周', pinned: true });
const ranked = (id: string, content: string, score: number, validFrom = '2026-11-30T08:00:00.000Z'): RankedMemory => ({
  memory: memory({ memoryId: id, content, validFrom }),
  score,
  components: { relevance: score, decay: 1, importance: 1, confidence: 1, ageDays: 0, usage: 0, prior: 1, steering: 1 },
});
const turns: RecentTurn[] = [
  { role: 'user', text: '预算大概多少合适？', occurredAt: '2026-11-30T10:00:00.000Z' },
  { role: 'assistant', text: '看你的需求。', occurredAt: '2026-11-30T10:00:05.000Z' },
  { role: 'user', text: '那就五万吧', occurredAt: '2026-11-30T10:01:00.000Z' },
];

describe('assembleContext', () => {
  it('given facts, memories and recent turns, then the block reads preamble → facts → memories → recent', () => {
    const result = assembleContext({
      facts: [fact],
      memories: [ranked('m1', '数据库用 PostgreSQL', 0.9), ranked('m2', '我不吃辣', 0.5)],
      recent: turns,
      tokenBudget: 1000,
      now: NOW,
    });
    expect(result.context).toBe(
      [
        CONTEXT_PREAMBLE,
        '<facts>',
        '- 我叫老周',
        '</facts>',
        '<memories>',
        '- [2026-11-30] 数据库用 PostgreSQL',
        '- [2026-11-30] 我不吃辣',
        '</memories>',
        '<recent>',
        'user: 预算大概多少合适？',
        'assistant: 看你的需求。',
        'user: 那就五万吧',
        '</recent>',
      ].join('\n'),
    );
    expect(result.tokensUsed).toBe(countTokens(result.context));
  });

  it('given a pinned fact that search also found, then it appears once, under facts', () => {
    const result = assembleContext({ facts: [fact], memories: [{ ...ranked('f1', '我叫老周', 1), memory: fact }], recent: [], tokenBudget: 500, now: NOW });
    expect(result.memories).toEqual([]);
    expect(result.context.match(/我叫老周/g)).toHaveLength(1);
  });

  it('given a tight budget, then facts keep their room, memories go by rank, recent keeps the newest', () => {
    const memories = Array.from({ length: 20 }, (_, i) => ranked(`m${String(i).padStart(2, '0')}`, `记忆第${i}条：一些比较长的内容用来占用预算`, 1 - i / 100));
    const result = assembleContext({ facts: [fact], memories, recent: turns, tokenBudget: 120, now: NOW });
    expect(result.tokensUsed).toBeLessThanOrEqual(120);
    expect(result.facts).toEqual([fact]);
    expect(result.memories.length).toBeGreaterThan(0);
    expect(result.memories.length).toBeLessThan(20);
    expect(result.memories.map((m) => m.memory.memoryId)).toEqual(memories.slice(0, result.memories.length).map((m) => m.memory.memoryId));
  });

  it('given room for only some recent turns, then the newest are kept, in chronological order', () => {
    const budget = countTokens(CONTEXT_PREAMBLE) + 30;
    const result = assembleContext({ facts: [], memories: [], recent: [...turns].reverse(), tokenBudget: budget, now: NOW });
    expect(result.recent.length).toBeGreaterThan(0);
    expect(result.recent.length).toBeLessThan(turns.length);
    expect(result.recent).toEqual(turns.slice(turns.length - result.recent.length));
    expect(result.tokensUsed).toBeLessThanOrEqual(budget);
  });

  it('given nothing to say or no budget, then an empty context', () => {
    expect(assembleContext({ facts: [], memories: [], recent: [], tokenBudget: 100, now: NOW })).toMatchObject({ context: '', tokensUsed: 0 });
    expect(assembleContext({ facts: [fact], memories: [], recent: turns, tokenBudget: 5, now: NOW })).toMatchObject({ context: '', tokensUsed: 0, facts: [], recent: [] });
  });
});
