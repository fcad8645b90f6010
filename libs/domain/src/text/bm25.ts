import { tokenize } from './tokenizer';

/**
 * Okapi BM25 (k1 1.2, b 0.75, idf ln(1 + (N − df + 0.5) / (df + 0.5)), Elasticsearch's) over one
 * set of documents held in memory. engram's one BM25 outside the search index: recall scores the
 * past views with it (there is no index of the past), and `engram eval` its lexical baseline over
 * the raw turns. The index adapters score their own (FTS5's bm25(), Elasticsearch's), over every
 * document they hold; see docs/memory-model.md §9 for what that changes.
 */
export class Bm25Index {
  private readonly docs: { readonly id: string; readonly tf: ReadonlyMap<string, number>; readonly length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    docs: readonly { readonly id: string; readonly text: string }[],
    private readonly terms: (text: string) => readonly string[] = tokenize,
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

  /** Every document's score, in document order (0 for one holding no term of the query). A repeated query term counts once. */
  scores(query: string): number[] {
    return this.scoresOf(this.terms(query));
  }

  /** `scores` for a query already cut into terms (its own way: a question is widened otherwise than a document). */
  scoresOf(terms: readonly string[]): number[] {
    const n = this.docs.length;
    const queryTerms = [...new Set(terms)];
    return this.docs.map((doc) => {
      let score = 0;
      for (const term of queryTerms) {
        const tf = doc.tf.get(term) ?? 0;
        if (tf === 0) continue;
        const df = this.df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * doc.length) / (this.avgLength || 1)));
      }
      return score;
    });
  }

  /** Documents with a positive score, best first (ties in document order). */
  search(query: string): { id: string; score: number }[] {
    return this.scores(query)
      .map((score, index) => ({ id: this.docs[index].id, score, index }))
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map(({ id, score }) => ({ id, score }));
  }
}
