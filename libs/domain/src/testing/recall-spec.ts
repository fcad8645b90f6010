import { deepStrictEqual } from 'node:assert';
import type { MemoryRecord } from '@engram/contracts';
import type { SearchHit } from '@engram/ports';
import type { RankingConfig } from '../ranking/ranking.config';
import { defaultRankingConfig } from '../ranking/ranking.config';
import { CONTEXT_ZONES, ContextZone } from '../recall/context-assembly';
import { pastCandidates, pastViews, rankableViews } from '../recall/past-candidates';
import { hitIds, indexCandidates, RecallCandidates, searchedText } from '../recall/recall-candidates';
import { followUpFor, RecallAnswer, recallPipeline, RecallQuery, RecallSession, RecallTurn } from '../recall/recall-pipeline';
import { embeddedText } from '../recall/searchable-text';
import { defaultAliasTable, expandQuery } from '../text/entity-aliases';
import { tokenize } from '../text/tokenizer';

/**
 * Specification helper for the recall pipeline, in the deciders' given/when/then:
 *
 *   recallSpec(options).given(memories, session).when(question, found).then([memories ranked])
 *
 * `given`: the user's memories as the fact store holds them (pinned ones, history and every status
 * included) and the session. `when`: the question, and what the candidate source finds — today's
 * index (`{ index: { bm25: [[memory, score]], cosine: [[memory, score]] } }`: its hits; the records
 * and pinned memories are read from `given` as RecallService reads the store) or a look into the
 * past (`{ past: { asOf, validAt } }`: the views at those instants, scored in memory with a small
 * term-vector embedding). A follow-up question ("那个方案后来怎么样了") searches the source again with
 * its referent's words, as RecallService does: the index's second hits are `index.followUp`, the
 * past views are scored again. `then`: the memories ranked, or a check of the whole answer.
 */

export interface RecallSpecOptions {
  readonly ranking?: RankingConfig;
  readonly tokenBudget?: number;
  readonly zones?: Readonly<Partial<Record<ContextZone, number>>>;
  /** The instant ranking measures ages from (default 2026-12-01). */
  readonly now?: string;
  /** Candidates per leg for the past views (default 60). */
  readonly limit?: number;
}

type Hits = readonly (readonly [MemoryRecord, number])[];

type CandidateSource =
  | {
      readonly index: {
        readonly bm25?: Hits;
        readonly cosine?: Hits;
        readonly access?: ReadonlyMap<string, { readonly hits: number; readonly lastAccessAt: string }>;
        /** What a follow-up question's second search (by its referent's words) finds. */
        readonly followUp?: { readonly bm25?: Hits; readonly cosine?: Hits };
      };
    }
  | { readonly past: { readonly asOf?: string; readonly validAt?: string } };

/** The question, with what else the request asks (`k` defaults to 5). */
type SpecQuestion = string | (Partial<Omit<RecallQuery, 'text' | 'expanded'>> & { readonly text: string });

export interface RecallSpecification {
  given(
    memories: readonly MemoryRecord[],
    session?: RecallSession<RecallTurn>,
  ): {
    when(
      question: SpecQuestion,
      found: CandidateSource,
    ): {
      /** The memories ranked, in order; or a check of the whole answer. Returns the answer. */
      then(expected: readonly MemoryRecord[] | ((answer: RecallAnswer<RecallTurn>) => void)): RecallAnswer<RecallTurn>;
      answer(): RecallAnswer<RecallTurn>;
    };
  };
}

export function recallSpec(options: RecallSpecOptions = {}): RecallSpecification {
  const now = new Date(options.now ?? '2026-12-01T00:00:00.000Z');
  const zones = Object.fromEntries(CONTEXT_ZONES.map((zone) => [zone, options.zones?.[zone] ?? 1500])) as Record<ContextZone, number>;
  return {
    given(memories, session = { summary: null, recent: [] }) {
      return {
        when(question, found) {
          const asked = typeof question === 'string' ? { text: question } : question;
          const lookBack = 'past' in found;
          const query: RecallQuery = {
            text: asked.text,
            expanded: expandQuery(asked.text, defaultAliasTable),
            k: asked.k ?? 5,
            filter: asked.filter ?? null,
            asOf: lookBack && found.past.asOf ? new Date(found.past.asOf) : null,
            validAt: lookBack && found.past.validAt ? new Date(found.past.validAt) : null,
            ...(asked.budget ? { budget: asked.budget } : {}),
          };
          const search = (lexical: string, semantic: string) =>
            'past' in found
              ? fromThePast(memories, query, lexical, semantic, options.limit ?? 60)
              : fromTheIndex(memories, query, found.index);
          const { pinned, candidates } = search(searchedText(query.expanded), query.expanded);
          const ranking = options.ranking ?? defaultRankingConfig;
          const followUp = followUpFor(query, candidates, ranking, now);
          const again = (text: string) =>
            'past' in found ? search(text, text).candidates : fromTheIndex(memories, query, found.index.followUp ?? {}).candidates;
          const run = () =>
            recallPipeline({
              query,
              candidates,
              pinned,
              session,
              options: { ranking, tokenBudget: options.tokenBudget ?? 1500, zones },
              now,
              followUps: followUp ? { followUp, candidates: again(followUp.text) } : null,
            });
          return {
            then(expected) {
              const answer = run();
              if (typeof expected === 'function') expected(answer);
              else
                deepStrictEqual(
                  answer.memories.map((ranked) => ranked.memory.memoryId),
                  expected.map((memory) => memory.memoryId),
                );
              return answer;
            },
            answer: run,
          };
        },
      };
    },
  };
}

/** As RecallService reads today's store: the active pinned memories, and the records the index's hits name. */
function fromTheIndex(
  memories: readonly MemoryRecord[],
  query: RecallQuery,
  found: { readonly bm25?: Hits; readonly cosine?: Hits; readonly access?: RecallCandidates['access'] },
): { pinned: MemoryRecord[]; candidates: RecallCandidates } {
  const hits = (list: Hits = []): SearchHit[] => list.map(([memory, score]) => ({ memoryId: memory.memoryId, score }));
  const textHits = hits(found.bm25);
  const vectorHits = hits(found.cosine);
  const ids = new Set(hitIds({ textHits, vectorHits }));
  return {
    pinned: memories.filter((memory) => memory.pinned && memory.status === 'active'),
    candidates: indexCandidates(
      { textHits, vectorHits },
      memories.filter((memory) => ids.has(memory.memoryId)),
      found.access,
      query.filter,
    ),
  };
}

/** As RecallService looks into the past: the views, their pinned ones, the rest scored by BM25 for `lexical` and the cosine to `semantic`. */
function fromThePast(
  memories: readonly MemoryRecord[],
  query: RecallQuery,
  lexical: string,
  semantic: string,
  limit: number,
): { pinned: MemoryRecord[]; candidates: RecallCandidates } {
  const views = pastViews(memories, query.asOf, query.validAt, query.filter);
  const rankable = rankableViews(views);
  const vectors = {
    query: termVector(semantic),
    passages: rankable.map((view) => termVector(embeddedText(view, defaultAliasTable))),
  };
  return {
    pinned: views.filter((memory) => memory.pinned),
    candidates: pastCandidates(rankable, lexical, vectors, { limit, aliases: defaultAliasTable }),
  };
}

const DIMENSIONS = 64;

/** A unit-length vector of hashed term counts: texts sharing terms are close, as with the hashing embedder. */
export function termVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const term of tokenize(text)) {
    let hash = 0;
    for (const char of term) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
    vector[hash % DIMENSIONS] += 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? vector : vector.map((x) => x / norm);
}
