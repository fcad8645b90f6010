import { Bm25Index, parseEvalDataset, percentile, QuestionResult, recalledTurnIds, scoreRanking, summarise } from './eval';
import { LineError } from './turn-lines';

const turn = (turnId: string, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'turn', userId: 'u1', sessionId: 's1', turnId, role: 'user', text, occurredAt: '2026-11-01T09:00:00Z', ...extra });
const question = (questionId: string, evidenceTurnIds: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'question', userId: 'u1', questionId, question: '数据库用什么？', evidenceTurnIds, askedAt: '2026-11-02T09:00:00Z', category: 'profile', ...extra });

function lineError(content: string): LineError {
  try {
    parseEvalDataset(content);
  } catch (error) {
    if (error instanceof LineError) return error;
    throw error;
  }
  throw new Error('expected a LineError');
}

describe('parseEvalDataset', () => {
  it('reads turn and question lines, skipping blank lines', () => {
    const { turns, questions } = parseEvalDataset(
      [turn('t1', '数据库用 PostgreSQL'), '', turn('t2', 'I prefer VS Code'), question('q1', ['t1']), question('q2', [], { category: 'none' })].join('\n'),
    );
    expect(turns.map((t) => t.turnId)).toEqual(['t1', 't2']);
    expect(questions).toHaveLength(2);
    expect(questions[0]).toEqual(
      expect.objectContaining({ questionId: 'q1', userId: 'u1', evidenceTurnIds: ['t1'], askedAt: '2026-11-02T09:00:00Z', category: 'profile' }),
    );
    expect(questions[1].evidenceTurnIds).toEqual([]);
  });

  it('accepts evidence that appears further down the file', () => {
    expect(parseEvalDataset([question('q1', ['t9']), turn('t9', 'hello there friend')].join('\n')).questions).toHaveLength(1);
  });

  it('names the line of any other line type', () => {
    const error = lineError([turn('t1', 'x y z'), '{"type":"answer","text":"?"}'].join('\n'));
    expect(error.line).toBe(2);
    expect(error.message).toBe('line 2: unknown line type "answer"');
  });

  it('names the line that is not JSON, or not an object', () => {
    expect(lineError([turn('t1', 'x y z'), '', '{oops'].join('\n')).message).toBe('line 3: not valid JSON');
    expect(lineError('[1, 2]').message).toBe('line 1: not a JSON object');
  });

  it('names the line and the fields of an invalid turn', () => {
    const error = lineError([question('q1', []), turn('t1', '', { occurredAt: 'yesterday' })].join('\n'));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/^line 2: /);
    expect(error.message).toContain('text');
    expect(error.message).toContain('occurredAt');
  });

  it('names the line and the fields of an invalid question', () => {
    const error = lineError(
      [turn('t1', 'x y z'), question('q1', ['t1']), question('q2', 't1' as unknown as string[], { askedAt: '2026-13-01', question: '' })].join('\n'),
    );
    expect(error.line).toBe(3);
    expect(error.message).toContain('evidenceTurnIds');
    expect(error.message).toContain('askedAt');
    expect(error.message).toContain('question');
    expect(lineError(question('q1', [], { category: 'Not A Slug' })).message).toMatch(/^line 1: .*category/);
    expect(lineError(question('q1', [], { questionId: undefined })).message).toMatch(/^line 1: .*questionId/);
  });

  it('rejects repeated ids, naming both lines', () => {
    expect(lineError([turn('t1', 'a b c'), turn('t2', 'd e f'), turn('t1', 'g h i')].join('\n')).message).toBe(
      'line 3: turnId "t1" of user "u1" repeats line 1',
    );
    expect(lineError([turn('t1', 'a b c'), question('q1', ['t1']), question('q1', ['t1'])].join('\n')).message).toBe(
      'line 3: questionId "q1" repeats line 2',
    );
    // The same turn id for another user is another turn.
    expect(parseEvalDataset([turn('t1', 'a b c'), turn('t1', 'a b c', { userId: 'u2' })].join('\n')).turns).toHaveLength(2);
  });

  it('rejects evidence that names no turn of that user, or comes after the question', () => {
    expect(lineError([turn('t1', 'a b c', { userId: 'u2' }), question('q1', ['t1'])].join('\n')).message).toBe(
      'line 2: evidence turn "t1" is not a turn of user "u1"',
    );
    expect(lineError([turn('t1', 'a b c'), question('q1', ['t1', 't1'])].join('\n')).message).toBe('line 2: evidenceTurnIds repeat an id');
    expect(lineError([turn('t1', 'a b c', { occurredAt: '2026-11-03T00:00:00Z' }), question('q1', ['t1'])].join('\n')).message).toBe(
      'line 2: askedAt is before evidence turn "t1" (line 1)',
    );
  });
});

describe('recalledTurnIds', () => {
  const item = (...sourceTurnIds: string[]) => ({ sourceTurnIds }) as never;

  it('walks facts then memories in rank order, drops repeats and keeps the first k', () => {
    const response = { facts: [item('t1'), item('t2', 't1')], memories: [item('t3', 't2'), item('t4'), item('t5')] };
    expect(recalledTurnIds(response, 10)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(recalledTurnIds(response, 3)).toEqual(['t1', 't2', 't3']);
    expect(recalledTurnIds({ facts: [], memories: [] }, 5)).toEqual([]);
  });
});

describe('scoreRanking', () => {
  it('gives the share of evidence found, the reciprocal rank of the first hit and whether there was one', () => {
    expect(scoreRanking(['a', 'b', 'c'], ['b'])).toEqual({ recall: 1, reciprocalRank: 0.5, hit: true });
    expect(scoreRanking(['a', 'b', 'c'], ['c', 'x'])).toEqual({ recall: 0.5, reciprocalRank: 1 / 3, hit: true });
    expect(scoreRanking(['x', 'a'], ['x', 'a'])).toEqual({ recall: 1, reciprocalRank: 1, hit: true });
    expect(scoreRanking(['a', 'b'], ['z'])).toEqual({ recall: 0, reciprocalRank: 0, hit: false });
    expect(scoreRanking([], ['z'])).toEqual({ recall: 0, reciprocalRank: 0, hit: false });
  });
});

describe('percentile', () => {
  it('is the nearest-rank percentile', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]; // 1..10
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('Bm25Index', () => {
  const words = (text: string) => text.split(' ').filter(Boolean);

  it('scores Okapi BM25 with k1 1.2 and b 0.75 (hand-computed)', () => {
    // N = 2, avgdl = 1.5; "apple" is in both: idf = ln(1 + 0.5/2.5) = ln 1.2.
    // A (dl 2): 2.2 / (1 + 1.2·(0.25 + 0.75·2/1.5)) = 2.2/2.5 = 0.88;  B (dl 1): 2.2 / (1 + 1.2·0.75) = 2.2/1.9.
    const index = new Bm25Index([{ id: 'A', text: 'apple banana' }, { id: 'B', text: 'apple' }], words);
    const hits = index.search('apple');
    expect(hits.map((h) => h.id)).toEqual(['B', 'A']);
    expect(hits[0].score).toBeCloseTo(Math.log(1.2) * (2.2 / 1.9), 10);
    expect(hits[1].score).toBeCloseTo(Math.log(1.2) * 0.88, 10);
    // "banana" only in A: idf = ln(1 + 1.5/1.5) = ln 2; documents without a query term are not returned.
    expect(index.search('banana')).toEqual([{ id: 'A', score: expect.closeTo(Math.log(2) * 0.88, 10) }]);
    expect(index.search('cherry')).toEqual([]);
  });

  it('rewards term frequency with saturation, and counts a repeated query term once', () => {
    const index = new Bm25Index(
      [
        { id: 'once', text: 'redis cache' },
        { id: 'twice', text: 'redis redis' },
        { id: 'other', text: 'postgres db' },
      ],
      words,
    );
    expect(index.search('redis').map((h) => h.id)).toEqual(['twice', 'once']);
    expect(index.search('redis redis')).toEqual(index.search('redis'));
  });

  it('breaks ties by document order and uses the shared tokenizer by default', () => {
    const index = new Bm25Index([
      { id: 't1', text: '我们的数据库用 PostgreSQL' },
      { id: 't2', text: 'I prefer VS Code for TypeScript work' },
      { id: 't3', text: '周末去爬山' },
    ]);
    expect(index.search('用的什么数据库').map((h) => h.id)).toEqual(['t1']);
    expect(index.search('which editor: VS Code?').map((h) => h.id)).toEqual(['t2']);
    expect(new Bm25Index([{ id: 'x', text: 'same' }, { id: 'y', text: 'same' }], words).search('same').map((h) => h.id)).toEqual(['x', 'y']);
  });
});

describe('summarise', () => {
  const result = (overrides: Partial<QuestionResult>): QuestionResult => ({
    questionId: 'q',
    userId: 'u1',
    category: 'profile',
    question: '?',
    evidence: ['e1'],
    recalled: [],
    baseline: [],
    facts: 0,
    memories: 0,
    tokens: 0,
    latencyMs: 10,
    ...overrides,
  });

  it('averages recall, MRR and hit rate over questions with evidence, per category and overall', () => {
    const results = [
      // recall 1, rr 1/2; baseline recall 0
      result({ questionId: 'q1', category: 'profile', evidence: ['e1'], recalled: ['x', 'e1'], baseline: ['y'], memories: 2, tokens: 300, latencyMs: 10 }),
      // recall 1/2, rr 1; baseline recall 1, rr 1/2
      result({ questionId: 'q2', category: 'profile', evidence: ['e1', 'e2'], recalled: ['e2', 'x'], baseline: ['z', 'e1', 'e2'], memories: 2, tokens: 600, latencyMs: 20 }),
      // recall 0, rr 0; baseline recall 1, rr 1
      result({ questionId: 'q3', category: 'temporal', evidence: ['e3'], recalled: ['x'], baseline: ['e3'], memories: 1, tokens: 150, latencyMs: 30 }),
      // none questions: right when no memory comes back; pinned facts alone still count as right
      result({ questionId: 'q4', category: 'none', evidence: [], recalled: ['f1'], facts: 1, memories: 0, tokens: 75, latencyMs: 40 }),
      result({ questionId: 'q5', category: 'none', evidence: [], recalled: ['x'], memories: 1, tokens: 75, latencyMs: 1000 }),
    ];
    const report = summarise(results, 5, 1500);
    expect(report).toEqual(
      expect.objectContaining({
        questions: 5,
        k: 5,
        recallAtK: 0.5, // (1 + 0.5 + 0) / 3
        mrr: 0.5, // (0.5 + 1 + 0) / 3
        hitRateAtK: 0.6667, // 2 / 3
        noneQuestions: 2,
        noneCorrect: 0.5,
        noneCorrectStrict: 0,
        tokenBudget: 1500,
        budgetUsed: { mean: 0.16, max: 0.4 }, // (300+600+150+75+75)/5/1500; 600/1500
        latencyMs: { p50: 30, p95: 1000, p99: 1000 },
        baseline: { recallAtK: 0.6667, mrr: 0.5, hitRateAtK: 0.6667 }, // (0+1+1)/3, (0+0.5+1)/3
      }),
    );
    expect(report.byCategory).toEqual({
      none: { questions: 2, recallAtK: null, mrr: null, hitRateAtK: null, baselineRecallAtK: null, noneCorrect: 0.5 },
      profile: { questions: 2, recallAtK: 0.75, mrr: 0.75, hitRateAtK: 1, baselineRecallAtK: 0.5, noneCorrect: null },
      temporal: { questions: 1, recallAtK: 0, mrr: 0, hitRateAtK: 0, baselineRecallAtK: 1, noneCorrect: null },
    });
  });

  it('reports zeros, not NaN, for an empty run', () => {
    const report = summarise([], 10, 1500);
    expect(report.recallAtK).toBe(0);
    expect(report.noneCorrect).toBeNull();
    expect(report.latencyMs).toEqual({ p50: 0, p95: 0, p99: 0 });
    expect(JSON.stringify(report)).not.toContain('NaN');
  });
});
