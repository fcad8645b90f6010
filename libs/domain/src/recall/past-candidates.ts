import type { MemoryRecord } from '@engram/contracts';
import type { Lexicon, SearchHit } from '@engram/ports';
import { Bm25Index } from '../text/bm25';
import { tokenize } from '../text/tokenizer';
import { lexiconTerms, termsInDictionaryForm } from '../text/related-terms';
import type { EntityAliasTable } from '../text/entity-aliases';
import { SUMMARY_KIND } from '../summaries/session-summary';
import { memoriesAsOf, memoriesValidAt } from './as-of';
import type { RecallCandidates } from './recall-candidates';
import { matchesRecallFilter, RecallFilter } from './recall-filter';
import { searchableText } from './searchable-text';

/**
 * Recall's second candidate source: "as engram knew it" at an instant (`asOf`, transaction time)
 * and "what was true then" (`validAt`, world time). The search index holds today's values and only
 * active memories, so it cannot answer for the past; instead the user's memories (all statuses,
 * from the fact store) are turned into their views at those instants and scored here as the
 * index would score them — BM25 over what each is found by (`searchableText`) and the cosine of
 * its vector (`embeddedText`, embedded by the caller) — then ranked by the same pipeline as
 * today's candidates. A user holds hundreds of memories: scoring them all in memory takes about a
 * millisecond (with a remote embedder, embedding them is the cost).
 */

/** The user's memories as they stood: as known at `asOf`, then as true at `validAt`, then filtered. All active. */
export function pastViews(
  memories: readonly MemoryRecord[],
  asOf: Date | null,
  validAt: Date | null,
  filter: RecallFilter | null,
): MemoryRecord[] {
  let views: MemoryRecord[] = asOf ? memoriesAsOf(memories, asOf) : [...memories];
  if (validAt) views = memoriesValidAt(views, validAt);
  else if (!asOf) views = views.filter((m) => m.status === 'active');
  return filter ? views.filter((m) => matchesRecallFilter(m, filter)) : views;
}

/** The views ranked against the query: not the pinned ones (a section of their own), not summaries (read by session). */
export function rankableViews(views: readonly MemoryRecord[]): MemoryRecord[] {
  return views.filter((m) => !m.pinned && m.kind !== SUMMARY_KIND);
}

/**
 * The past views' candidates: the `limit` best of each leg, as the index would return them. `views`
 * are `rankableViews`; `vectors.passages[i]` is the embedding of `embeddedText(views[i])`,
 * `vectors.query` the query's (embedded as a query: asymmetric models); null when there are none
 * (the embedder is unavailable): BM25's candidates alone.
 */
export function pastCandidates(
  views: readonly MemoryRecord[],
  query: string,
  vectors: { readonly query: readonly number[]; readonly passages: readonly (readonly number[])[] } | null,
  options: { readonly limit: number; readonly aliases: EntityAliasTable; readonly lexicon?: Lexicon },
): RecallCandidates {
  // As the index holds them: each text's terms with its lexicon terms as a memory; the question's as a question.
  const asMemory = (text: string) => [...tokenize(text), ...lexiconTerms(text, options.lexicon, 'memory')];
  const documents = views.map((m) => ({ id: m.memoryId, text: searchableText(m, options.aliases) }));
  const asked = [...termsInDictionaryForm(query, options.lexicon), ...lexiconTerms(query, options.lexicon, 'question')];
  const bm25 = new Bm25Index(documents, asMemory).scoresOf(asked);
  const textHits = top(
    views.map((m, i) => ({ memoryId: m.memoryId, score: bm25[i] })).filter((h) => h.score > 0),
    options.limit,
  );
  const vectorHits = vectors
    ? top(
        views.map((m, i) => ({ memoryId: m.memoryId, score: dot(vectors.query, vectors.passages[i]) })),
        options.limit,
      )
    : [];
  return { textHits, vectorHits, memories: views };
}

/** Best first, ties by id (as the index adapters order them), the first `limit`. */
function top(hits: SearchHit[], limit: number): SearchHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : 1)).slice(0, limit);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * (b[i] ?? 0);
  return sum;
}
