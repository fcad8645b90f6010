// The lexical baseline, plain BM25 over one user's raw turns, is the domain's `Bm25Index` (the
// same BM25 recall scores the past views with), built in runner.ts.

/**
 * The dense baseline: every passage ranked by cosine similarity to the query vector, best first
 * (ties in passage order). Cosine rather than a bare dot product, so a server whose vectors are not
 * unit length is ranked the same way; a zero vector scores 0.
 */
export function denseRanking(
  query: readonly number[],
  passages: readonly { id: string; vector: readonly number[] }[],
): { id: string; score: number }[] {
  const norm = (v: readonly number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  const queryNorm = norm(query);
  return passages
    .map(({ id, vector }, index) => {
      const length = norm(vector) * queryNorm;
      let dot = 0;
      for (let i = 0; i < Math.min(vector.length, query.length); i++) dot += vector[i] * query[i];
      return { id, score: length === 0 ? 0 : dot / length, index };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ id, score }) => ({ id, score }));
}
