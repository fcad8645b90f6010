import type { MemoryRecord } from '@engram/contracts';
import {
  EntityAliasTable,
  fuse,
  matchesRecallFilter,
  memoriesAsOf,
  memoriesValidAt,
  RankedMemory,
  rankMemories,
  RankingConfig,
  RecallFilter,
  SUMMARY_KIND,
  speakersOf,
  tokenize,
  understandQuery,
} from '@engram/domain';
import type { Embedder, SearchHit } from '@engram/ports';
import { embeddedText, searchableText } from '../pipeline/search.projection';

/**
 * Recall "as engram knew it" at an instant (`asOf`, transaction time) and "what was true then"
 * (`validAt`, world time). The search index holds today's values and only active memories, so it
 * cannot answer for the past; instead the user's memories (all statuses, from the fact store) are
 * turned into their views at those instants (`memoriesAsOf`, then `memoriesValidAt`), narrowed by
 * the request's filters, and ranked here with the same BM25 and embedding scoring the index uses,
 * then the same fusion and rerank. A user holds hundreds of memories: scoring them all in memory
 * takes about a millisecond (with a remote embedder, embedding them is the cost).
 */
export interface AsOfRecall {
  readonly pinned: MemoryRecord[];
  readonly ranked: RankedMemory[];
}

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

/** Ranks views that are all active (from `pastViews` or `memoriesAsOf`) as the index would rank them. */
export async function recallOver(
  known: readonly MemoryRecord[],
  query: string,
  now: Date,
  options: { readonly embedder: Embedder; readonly ranking: RankingConfig; readonly limit: number; readonly aliases: EntityAliasTable },
): Promise<AsOfRecall> {
  const pinned = known.filter((m) => m.pinned);
  const searchable = known.filter((m) => !m.pinned && m.kind !== SUMMARY_KIND); // summaries are read by session, not ranked
  if (searchable.length === 0) return { pinned, ranked: [] };
  const texts = searchable.map((m) => searchableText(m, options.aliases));
  // Two calls: the query and the memories are embedded as what they are (asymmetric models).
  const [[queryVector], vectors] = await Promise.all([
    options.embedder.embed([query], 'query'),
    options.embedder.embed(
      searchable.map((m) => embeddedText(m, options.aliases)),
      'passage',
    ),
  ]);
  const terms = tokenize(query);
  const bm25 = bm25Scores(terms, texts.map(tokenize));
  const textHits: SearchHit[] = top(
    searchable.map((m, i) => ({ memoryId: m.memoryId, score: bm25[i] })).filter((h) => h.score > 0),
    options.limit,
  );
  const vectorHits: SearchHit[] = top(
    searchable.map((m, i) => ({ memoryId: m.memoryId, score: dot(queryVector, vectors[i]) })),
    options.limit,
  );
  const fused = fuse(textHits, vectorHits, options.ranking.rrfK);
  const candidates = searchable.filter((m) => fused.has(m.memoryId)).map((memory) => ({ memory, fusion: fused.get(memory.memoryId)! }));
  const asked = understandQuery(query, now, speakersOf(candidates.map((c) => c.memory)));
  return { pinned, ranked: rankMemories(candidates, now, options.ranking, asked) };
}

/** Okapi BM25 (k1 1.2, b 0.75) over pre-tokenised documents, as the FTS5 and Elasticsearch adapters score. */
export function bm25Scores(query: readonly string[], documents: readonly (readonly string[])[]): number[] {
  const k1 = 1.2;
  const b = 0.75;
  const n = documents.length;
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n);
  const terms = [...new Set(query)];
  const frequency = new Map(terms.map((t) => [t, documents.filter((d) => d.includes(t)).length]));
  return documents.map((document) => {
    let score = 0;
    for (const term of terms) {
      const tf = document.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = frequency.get(term)!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * document.length) / Math.max(1, averageLength)));
    }
    return score;
  });
}

function top(hits: SearchHit[], limit: number): SearchHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : 1)).slice(0, limit);
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * (b[i] ?? 0);
  return sum;
}
