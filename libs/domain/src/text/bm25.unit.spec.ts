import { Bm25Index } from './bm25';

describe('Bm25Index', () => {
  const words = (text: string) => text.split(' ').filter(Boolean);
  const index = new Bm25Index(
    [
      { id: 'A', text: 'apple banana' },
      { id: 'B', text: 'apple' },
      { id: 'C', text: 'cherry' },
    ],
    words,
  );

  it('scores every document in document order, 0 for one holding no term of the query (hand-computed)', () => {
    // N = 3, avgdl = 4/3; "apple" in two: idf = ln(1 + 1.5/2.5) = ln 1.6.
    // A (dl 2): 2.2 / (1 + 1.2·(0.25 + 0.75·2/(4/3))) = 2.2/2.65;  B (dl 1): 2.2 / (1 + 1.2·(0.25 + 0.75·0.75)) = 2.2/1.975.
    const [a, b, c] = index.scores('apple');
    expect(a).toBeCloseTo(Math.log(1.6) * (2.2 / 2.65), 10);
    expect(b).toBeCloseTo(Math.log(1.6) * (2.2 / 1.975), 10);
    expect(c).toBe(0);
  });

  it('searches what scores: positive only, best first', () => {
    expect(index.search('apple cherry').map((hit) => hit.id)).toEqual(['C', 'B', 'A']);
    expect(index.search('durian')).toEqual([]);
    expect(index.search('apple').map((hit) => hit.score)).toEqual([index.scores('apple')[1], index.scores('apple')[0]]);
  });

  it('scores nothing over no documents', () => {
    expect(new Bm25Index([]).scores('apple')).toEqual([]);
  });
});
