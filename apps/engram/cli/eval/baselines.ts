import { tokenize } from '@engram/domain';

/** Plain Okapi BM25 (k1 1.2, b 0.75) over one user's raw turns: the lexical baseline engram has to beat. */
export class Bm25Index {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    docs: readonly { id: string; text: string }[],
    private readonly terms: (text: string) => string[] = tokenize,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = docs.map(({ id, text }) => {
      const tf = new Map<string, number>();
      const words = terms(text);
      for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
      for (const word of tf.keys()) this.df.set(word, (this.df.get(word) ?? 0) + 1);
      return { id, tf, length: words.length };
    });
    this.avgLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** Documents with a positive score, best first (ties in document order). */
  search(query: string): { id: string; score: number }[] {
    const n = this.docs.length;
    const queryTerms = [...new Set(this.terms(query))];
    const scored = this.docs.map((doc, index) => {
      let score = 0;
      for (const term of queryTerms) {
        const tf = doc.tf.get(term) ?? 0;
        if (tf === 0) continue;
        const df = this.df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * doc.length) / (this.avgLength || 1)));
      }
      return { id: doc.id, score, index };
    });
    return scored
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map(({ id, score }) => ({ id, score }));
  }
}

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
