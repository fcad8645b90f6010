import { HashingEmbedder } from '@engram/embedding';
import {
  Bm25Index,
  denseRanking,
  evidenceCoverage,
  formatMisses,
  parseEvalDataset,
  percentile,
  pinnedTurnIds,
  QuestionResult,
  questionLanguage,
  rankedTurnIds,
  rankingDepth,
  scoreRanking,
  selectMisses,
  summarise,
  turnDocument,
} from './eval';
import { LineError } from './turn-lines';

const turn = (turnId: string, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'turn', userId: 'u1', sessionId: 's1', turnId, role: 'user', text, occurredAt: '2026-11-01T09:00:00Z', ...extra });
const question = (questionId: string, evidenceTurnIds: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'question',
    userId: 'u1',
    questionId,
    question: '数据库用什么？',
    evidenceTurnIds,
    askedAt: '2026-11-02T09:00:00Z',
    category: 'profile',
    ...extra,
  });

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
      [
        turn('t1', '数据库用 PostgreSQL'),
        '',
        turn('t2', 'I prefer VS Code'),
        question('q1', ['t1']),
        question('q2', [], { category: 'none' }),
      ].join('\n'),
    );
    expect(turns.map((t) => t.turnId)).toEqual(['t1', 't2']);
    expect(questions).toHaveLength(2);
    expect(questions[0]).toEqual(
      expect.objectContaining({
        questionId: 'q1',
        userId: 'u1',
        evidenceTurnIds: ['t1'],
        askedAt: '2026-11-02T09:00:00Z',
        category: 'profile',
      }),
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
      [
        turn('t1', 'x y z'),
        question('q1', ['t1']),
        question('q2', 't1' as unknown as string[], { askedAt: '2026-13-01', question: '' }),
      ].join('\n'),
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

describe('rankedTurnIds and pinnedTurnIds', () => {
  const item = (...sourceTurnIds: string[]) => ({ sourceTurnIds }) as never;

  it('walks the ranked memories only, in rank order, drops repeats and keeps the first k', () => {
    const response = { facts: [item('t1'), item('t2', 't1')], memories: [item('t3', 't2'), item('t4'), item('t3', 't5')] };
    expect(rankedTurnIds(response, 10)).toEqual(['t3', 't2', 't4', 't5']);
    expect(rankedTurnIds(response, 2)).toEqual(['t3', 't2']);
    expect(rankedTurnIds({ memories: [] }, 5)).toEqual([]);
  });

  it('collects the pinned facts apart, without repeats', () => {
    expect(pinnedTurnIds({ facts: [item('t1'), item('t2', 't1')] })).toEqual(['t1', 't2']);
    expect(pinnedTurnIds({ facts: [] })).toEqual([]);
  });

  it('keeps rankings deep enough for recall@10 whatever the headline k', () => {
    expect(rankingDepth(5)).toBe(10);
    expect(rankingDepth(10)).toBe(10);
    expect(rankingDepth(20)).toBe(20);
  });
});

describe('questionLanguage and turnDocument', () => {
  it('calls a question zh when it holds a Han character, en otherwise', () => {
    expect(questionLanguage('数据库用什么？')).toBe('zh');
    expect(questionLanguage('What does Amy call the 单页结账 project?')).toBe('zh');
    expect(questionLanguage('When is Max’s swim class?')).toBe('en');
    expect(questionLanguage('これはテストです')).toBe('en'); // kana only: not Han
  });

  it('puts the speaker before the text when the turn has one', () => {
    expect(turnDocument({ speaker: 'Caroline', text: 'I went to a support group.' })).toBe('Caroline: I went to a support group.');
    expect(turnDocument({ text: 'no speaker here' })).toBe('no speaker here');
  });

  it('lets BM25 find a turn by its speaker', () => {
    const turns = [
      { turnId: 'd1', speaker: 'Caroline', text: 'I went to a support group yesterday' },
      { turnId: 'd2', speaker: 'Melanie', text: 'I painted a lake sunrise' },
    ];
    const index = new Bm25Index(turns.map((t) => ({ id: t.turnId, text: turnDocument(t) })));
    expect(index.search('What did Melanie do?').map((h) => h.id)).toEqual(['d2']);
  });
});

describe('evidenceCoverage', () => {
  const sources = new Map([
    ['u1', new Set(['t1', 't2'])],
    ['u2', new Set(['t9'])],
  ]);

  it('is the share of distinct evidence turns, per user, that a stored memory points at', () => {
    const coverage = evidenceCoverage(
      [
        { userId: 'u1', evidence: ['t1', 't3'] },
        { userId: 'u1', evidence: ['t1'] }, // t1 again: counted once
        { userId: 'u2', evidence: ['t1', 't9'] }, // u2's t1 is another turn, and no memory of u2 points at it
        { userId: 'u3', evidence: ['t1'] }, // a user without memories
      ],
      sources,
    );
    expect(coverage).toEqual({ evidenceTurns: 5, covered: 2, share: 0.4 });
  });

  it('is null without evidence', () => {
    expect(evidenceCoverage([{ userId: 'u1', evidence: [] }], sources)).toEqual({ evidenceTurns: 0, covered: 0, share: null });
  });
});

describe('denseRanking', () => {
  it('ranks every passage by cosine, best first, ties in passage order', () => {
    const passages = [
      { id: 'a', vector: [1, 0] },
      { id: 'b', vector: [0, 2] }, // not unit length: cosine, not the dot product
      { id: 'c', vector: [1, 1] },
      { id: 'd', vector: [0, 1] },
      { id: 'z', vector: [0, 0] },
    ];
    const ranked = denseRanking([0, 1], passages);
    expect(ranked.map((h) => h.id)).toEqual(['b', 'd', 'c', 'a', 'z']);
    expect(ranked[0].score).toBeCloseTo(1, 10);
    expect(ranked[2].score).toBeCloseTo(Math.SQRT1_2, 10);
    expect(ranked[3].score).toBe(0);
    expect(ranked[4].score).toBe(0); // a zero vector scores 0, not NaN
  });

  it('with the hashing embedder, puts the turn sharing the query’s words and trigrams first', async () => {
    const embedder = new HashingEmbedder(256);
    const texts = ['周末去爬山了，风景很好', 'Our main database is PostgreSQL 15 on RDS', 'I prefer VS Code for TypeScript work'];
    const vectors = await embedder.embed(texts);
    const passages = vectors.map((vector, i) => ({ id: `t${i + 1}`, vector }));
    const [postgres] = await embedder.embed(['which Postgres database do we use?']);
    expect(denseRanking(postgres, passages)[0].id).toBe('t2');
    const [editor] = await embedder.embed(['what editor for TypeScript?']);
    expect(denseRanking(editor, passages)[0].id).toBe('t3');
    const [hiking] = await embedder.embed(['周末爬山']);
    expect(denseRanking(hiking, passages)[0].id).toBe('t1');
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
    const index = new Bm25Index(
      [
        { id: 'A', text: 'apple banana' },
        { id: 'B', text: 'apple' },
      ],
      words,
    );
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
    expect(
      new Bm25Index(
        [
          { id: 'x', text: 'same' },
          { id: 'y', text: 'same' },
        ],
        words,
      )
        .search('same')
        .map((h) => h.id),
    ).toEqual(['x', 'y']);
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
    pinned: [],
    baseline: [],
    dense: [],
    returned: [],
    facts: 0,
    memories: 0,
    tokens: 0,
    latencyMs: 10,
    ...overrides,
  });

  // k = 5. Engram's lists are its ranked memories only (pinned facts apart); every list is kept 10 deep.
  const results = [
    // engram: evidence only at rank 6 (R@5 0, R@10 1); a pinned fact holds it; BM25 rank 1; dense rank 2
    result({
      questionId: 'q1',
      category: 'profile',
      question: '我叫什么？',
      evidence: ['e1'],
      recalled: ['x1', 'x2', 'x3', 'x4', 'x5', 'e1'],
      pinned: ['e1'],
      baseline: ['e1'],
      dense: ['y', 'e1'],
      facts: 1,
      memories: 6,
      tokens: 300,
      latencyMs: 10,
    }),
    // engram: R 1/2, rr 1; BM25: R 1, rr 1/2; dense: nothing
    result({
      questionId: 'q2',
      category: 'profile',
      question: 'Where do I work?',
      evidence: ['e1', 'e2'],
      recalled: ['e2', 'x'],
      baseline: ['z', 'e1', 'e2'],
      memories: 2,
      tokens: 600,
      latencyMs: 20,
    }),
    // nobody at 5; dense at rank 7 (R@10 1): not a miss at k = 5
    result({
      questionId: 'q3',
      category: 'temporal',
      question: 'When?',
      evidence: ['e3'],
      recalled: ['x'],
      dense: ['a', 'b', 'c', 'd', 'e', 'f', 'e3'],
      memories: 1,
      tokens: 150,
      latencyMs: 30,
    }),
    // engram returns nothing, BM25 rank 1: a miss
    result({
      questionId: 'q4',
      userId: 'u2',
      category: 'temporal',
      question: 'Since when?',
      evidence: ['e4'],
      baseline: ['e4'],
      tokens: 150,
      latencyMs: 40,
    }),
    // none questions: right when no memory comes back; pinned facts alone still count as right
    result({
      questionId: 'q5',
      category: 'none',
      question: '我的血型是什么？',
      evidence: [],
      pinned: ['e1'],
      facts: 1,
      memories: 0,
      tokens: 75,
      latencyMs: 50,
    }),
    result({
      questionId: 'q6',
      category: 'none',
      question: 'What car do I drive?',
      evidence: [],
      recalled: ['x'],
      memories: 1,
      tokens: 75,
      latencyMs: 1000,
    }),
  ];
  const sources = new Map([['u1', new Set(['e1', 'e3', 'x'])]]); // u2 has no memory
  const summary = () => summarise(results, { k: 5, tokenBudget: 1500, sources, denseModel: 'hashing-v1-256' });

  it('scores engram and both baselines at 5, 10 and k over questions with evidence, pinned facts apart', () => {
    expect(summary()).toEqual(
      expect.objectContaining({
        questions: 6,
        k: 5,
        recallAtK: 0.125, // (0 + 1/2 + 0 + 0) / 4
        recallAt5: 0.125,
        recallAt10: 0.375, // (1 + 1/2 + 0 + 0) / 4
        mrr: 0.25, // at k: (0 + 1 + 0 + 0) / 4
        hitRateAtK: 0.25,
        baseline: { recallAtK: 0.75, recallAt5: 0.75, recallAt10: 0.75, mrr: 0.625, hitRateAtK: 0.75 }, // mrr (1 + 1/2 + 0 + 1) / 4
        dense: { recallAtK: 0.25, recallAt5: 0.25, recallAt10: 0.5, mrr: 0.125, hitRateAtK: 0.25, model: 'hashing-v1-256' },
        pinnedEvidence: 0.25, // q1
        pinnedEvidenceOnly: 0.25, // q1: not in the top 5 memories
        noneQuestions: 2,
        noneCorrect: 0.5,
        noneCorrectStrict: 0,
        tokenBudget: 1500,
        budgetUsed: { mean: 0.15, max: 0.4 }, // 1350 / 6 / 1500; 600 / 1500
        latencyMs: { p50: 30, p95: 1000, p99: 1000 },
        misses: ['q1', 'q4'],
      }),
    );
  });

  it('reports evidence coverage over distinct evidence turns, overall, per category and per language', () => {
    const report = summary();
    // u1:e1, u1:e2, u1:e3, u2:e4 — e1 and e3 are a memory's source
    expect(report).toEqual(expect.objectContaining({ coverage: 0.5, evidenceTurns: 4, coveredEvidenceTurns: 2 }));
    expect(report.byCategory.profile.coverage).toBe(0.5);
    expect(report.byCategory.temporal.coverage).toBe(0.5);
    expect(report.byCategory.none.coverage).toBeNull();
    expect(report.byLanguage.zh!.coverage).toBe(1);
    expect(report.byLanguage.en!.coverage).toBe(0.5);
  });

  it('breaks every figure down per category and per language', () => {
    const report = summary();
    const nulls = { recallAtK: null, recallAt5: null, recallAt10: null, mrr: null, hitRateAtK: null };
    expect(Object.keys(report.byCategory)).toEqual(['none', 'profile', 'temporal']);
    expect(report.byCategory.none).toEqual({
      questions: 2,
      ...nulls,
      baselineRecallAtK: null,
      baseline: nulls,
      dense: nulls,
      coverage: null,
      pinnedEvidence: null,
      noneCorrect: 0.5,
    });
    expect(report.byCategory.profile).toEqual({
      questions: 2,
      recallAtK: 0.25,
      recallAt5: 0.25,
      recallAt10: 0.75,
      mrr: 0.5,
      hitRateAtK: 0.5,
      baselineRecallAtK: 1,
      baseline: { recallAtK: 1, recallAt5: 1, recallAt10: 1, mrr: 0.75, hitRateAtK: 1 },
      dense: { recallAtK: 0.5, recallAt5: 0.5, recallAt10: 0.5, mrr: 0.25, hitRateAtK: 0.5 },
      coverage: 0.5,
      pinnedEvidence: 0.5,
      noneCorrect: null,
    });
    expect(Object.keys(report.byLanguage)).toEqual(['en', 'zh']);
    expect(report.byLanguage.zh).toEqual({
      questions: 2, // q1, q5
      recallAtK: 0,
      recallAt5: 0,
      recallAt10: 1,
      mrr: 0,
      hitRateAtK: 0,
      baselineRecallAtK: 1,
      baseline: { recallAtK: 1, recallAt5: 1, recallAt10: 1, mrr: 1, hitRateAtK: 1 },
      dense: { recallAtK: 1, recallAt5: 1, recallAt10: 1, mrr: 0.5, hitRateAtK: 1 },
      coverage: 1,
      pinnedEvidence: 1,
      noneCorrect: 1,
    });
    expect(report.byLanguage.en).toEqual(
      expect.objectContaining({ questions: 4, recallAt5: 0.1667, recallAt10: 0.1667, mrr: 0.3333, pinnedEvidence: 0, noneCorrect: 0 }),
    );
  });

  it('reports zeros, not NaN, for an empty run', () => {
    const report = summarise([], { k: 10, tokenBudget: 1500, sources: new Map(), denseModel: 'm' });
    expect(report.recallAtK).toBe(0);
    expect(report.recallAt10).toBe(0);
    expect(report.noneCorrect).toBeNull();
    expect(report.coverage).toBeNull();
    expect(report.byLanguage).toEqual({});
    expect(report.misses).toEqual([]);
    expect(report.latencyMs).toEqual({ p50: 0, p95: 0, p99: 0 });
    expect(JSON.stringify(report)).not.toContain('NaN');
  });
});

describe('selectMisses and formatMisses', () => {
  const result = (overrides: Partial<QuestionResult>): QuestionResult => ({
    questionId: 'q',
    userId: 'u1',
    category: 'single-hop',
    question: '?',
    evidence: ['e1'],
    recalled: [],
    pinned: [],
    baseline: [],
    dense: [],
    returned: [],
    facts: 0,
    memories: 0,
    tokens: 0,
    latencyMs: 1,
    ...overrides,
  });

  it('keeps questions with no evidence in engram’s top k and some in a baseline’s top k', () => {
    const results = [
      result({ questionId: 'found-by-bm25', recalled: ['x'], baseline: ['e1'] }),
      result({ questionId: 'found-by-dense', dense: ['a', 'e1'] }),
      result({ questionId: 'engram-too', recalled: ['e1'], baseline: ['e1'] }),
      result({ questionId: 'engram-at-3', recalled: ['x', 'y', 'e1'], baseline: ['e1'] }),
      result({ questionId: 'nobody', recalled: ['x'], baseline: ['y'], dense: ['z'] }),
      result({ questionId: 'baseline-too-deep', baseline: ['a', 'b', 'e1'] }),
      result({ questionId: 'pinned-only', pinned: ['e1'], baseline: ['e1'] }), // a pinned fact is no ranked answer
      result({ questionId: 'none', evidence: [], baseline: ['x'] }),
    ];
    expect(selectMisses(results, 2).map((r) => r.questionId)).toEqual(['found-by-bm25', 'found-by-dense', 'engram-at-3', 'pinned-only']);
    expect(selectMisses(results, 3).map((r) => r.questionId)).toEqual([
      'found-by-bm25',
      'found-by-dense',
      'baseline-too-deep',
      'pinned-only',
    ]);
  });

  it('prints one line per miss: question, category, evidence text, baseline ranks and what engram returned', () => {
    const long = 'Caroline said she went to the LGBTQ support group on the 7th of May and found it very moving';
    const lines = formatMisses(
      [
        result({
          questionId: 'q7',
          question: 'When did Caroline go to the support group?',
          evidence: ['d1', 'd2'],
          baseline: ['d2'],
          dense: ['x', 'y', 'd1'],
          returned: ['Caroline likes hiking', 'Melanie paints\nlakes', 'Caroline has a dog', 'a fourth memory'],
        }),
        result({ questionId: 'q8', baseline: ['e1'] }),
        result({ questionId: 'hit', recalled: ['e1'], baseline: ['e1'] }),
      ],
      5,
      (userId, turnId) => ({ d1: long, d2: 'short one', e1: 'the answer' })[turnId],
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      'q7 [single-hop] When did Caroline go to the support group?' +
        `  evidence: d1 "${long.slice(0, 59)}…" + d2 "short one"` +
        '  BM25 #1 dense #3' +
        '  engram: "Caroline likes hiking" | "Melanie paints lakes" | "Caroline has a dog"',
    );
    expect(lines[1]).toBe('q8 [single-hop] ?  evidence: e1 "the answer"  BM25 #1 dense —  engram: (no memory)');
  });
});
