/** What BM25 needs of the whole index: every active document of every user counts, as it did in FTS5. */
export interface IndexStatistics {
  /** Active documents. */
  readonly documents: number;
  /** Their lengths summed (`documentLength`). */
  readonly tokens: number;
  /** Active documents holding each term. */
  documentsWith(term: string): number;
}

/**
 * A document's length in tokens: its terms, plus the one token of the owner column the FTS5 table had
 * before postings were keyed by user — counted still, so that every score stays what it was.
 */
export function documentLength(terms: readonly string[]): number {
  let n = 1;
  for (const term of terms) if (term.length > 0) n++;
  return n;
}

const K1 = 1.2;
const B = 0.75;

/**
 * BM25 exactly as FTS5's built-in `bm25()` computes it (ext/fts5/fts5_aux.c: k1 1.2, b 0.75, an IDF
 * of log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, the query's terms summed in their order), with
 * the statistics given rather than walked: FTS5 counts a term's documents by reading its whole
 * posting list, every user's, on every query. Same arithmetic in the same order: the same doubles but
 * for the last bit of a logarithm now and then (V8's Math.log is not the C library's).
 */
export class Bm25Scorer {
  private readonly idf: number[];
  private readonly position = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    private readonly queryTerms: readonly string[],
    statistics: IndexStatistics,
  ) {
    queryTerms.forEach((term, i) => this.position.set(term, i));
    this.averageLength = statistics.tokens / statistics.documents;
    this.idf = queryTerms.map((term) => {
      const n = statistics.documentsWith(term);
      const idf = Math.log((statistics.documents - n + 0.5) / (n + 0.5));
      return idf <= 0 ? 1e-6 : idf;
    });
  }

  /** The score of a document holding `terms` (higher is better). */
  score(terms: readonly string[]): number {
    const frequency = new Array<number>(this.queryTerms.length).fill(0);
    for (const term of terms) {
      const i = this.position.get(term);
      if (i !== undefined) frequency[i] += 1;
    }
    const d = documentLength(terms);
    let score = 0;
    // FTS5's own sum began with the owner column's phrase, weighted 0: adding 0 first changes no double.
    for (let i = 0; i < this.queryTerms.length; i++) {
      score += this.idf[i] * ((frequency[i] * (K1 + 1.0)) / (frequency[i] + K1 * (1 - B + (B * d) / this.averageLength)));
    }
    return score;
  }
}
