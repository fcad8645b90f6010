import type { SearchDocument, SearchHit, SearchIndex } from '@engram/ports';
import type { StoreContractOptions } from './fact-store.contract';
import { aSearchDocument, uniqueName } from './fixtures';

export interface SearchIndexContractOptions extends StoreContractOptions<SearchIndex> {
  /** Tolerance when comparing vector scores with the exact cosine. Default 1e-4. */
  cosineTolerance?: number;
}

/**
 * The search-index contract (SQLite FTS5 + vectors, Elasticsearch): BM25 over
 * the given terms, cosine over vectors, versioned upserts, active documents
 * only, and absolute tenant/user isolation.
 */
export function testSearchIndex(factory: () => Promise<SearchIndex>, options: SearchIndexContractOptions = {}): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;
  const tolerance = options.cosineTolerance ?? 1e-4;

  describe('SearchIndex contract', () => {
    let index: SearchIndex;
    let tenantId: string;
    const userId = 'user-1';
    const settle = () => options.settle?.(index) ?? Promise.resolve();
    const upsert = async (documents: readonly SearchDocument[]) => {
      await index.upsert(documents);
      await settle();
    };
    const doc = (overrides: Partial<SearchDocument> = {}) => aSearchDocument({ tenantId, userId, ...overrides });
    const text = (terms: readonly string[], limit = 10) => index.searchText({ tenantId, userId, terms, limit });
    const vector = (v: readonly number[], limit = 10) => index.searchVector({ tenantId, userId, vector: v, limit });
    const ids = (hits: readonly SearchHit[]) => hits.map((h) => h.memoryId);
    /** Unrelated documents, so the tested terms are rare enough for a positive IDF even in a fresh index. */
    const fillers = (n = 8) =>
      Array.from({ length: n }, (_, i) => doc({ memoryId: `filler-${i}`, terms: [`filler${i}`, 'weather', 'weekend'] }));

    beforeAll(async () => {
      index = await factory();
    });
    beforeEach(() => {
      tenantId = uniqueName('tenant');
    });
    afterAll(async () => {
      if (index) await options.teardown?.(index);
    });

    it(
      'ranks by BM25: more matching terms rank first, scores are positive and descending',
      async () => {
        const both = doc({ memoryId: 'both', terms: ['postgres', 'database', 'prefer'] });
        const one = doc({ memoryId: 'one', terms: ['database', 'backup', 'nightly'] });
        const none = doc({ memoryId: 'none', terms: ['coffee', 'morning'] });
        await upsert([none, one, both, ...fillers()]);

        const hits = await text(['postgres', 'database']);
        expect(ids(hits)).toEqual(['both', 'one']);
        expect(hits[0].score).toBeGreaterThan(hits[1].score);
        expect(hits.every((h) => h.score > 0)).toBe(true);
        expect(ids(await text(['postgres', 'database'], 1))).toEqual(['both']);
      },
      testTimeoutMs,
    );

    it(
      'matches Chinese words and bigrams as whole terms',
      async () => {
        const cafe = doc({ memoryId: 'cafe', content: '推荐你去咖啡店', terms: ['推荐', '咖啡店', '咖啡'] });
        const books = doc({ memoryId: 'books', content: '推荐你读三体', terms: ['推荐', '读', '三体'] });
        const shopOnly = doc({ memoryId: 'shop', content: '咖啡店', terms: ['咖啡店'] });
        await upsert([cafe, books, shopOnly, ...fillers()]);

        expect(ids(await text(['咖啡店', '推荐']))).toEqual(['cafe', 'shop', 'books']);
        expect(ids(await text(['三体']))).toEqual(['books']);
        // A term is never split: "咖啡" does not match a document that only has "咖啡店", nor does "店".
        expect(ids(await text(['咖啡']))).toEqual(['cafe']);
        expect(await text(['店'])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'treats terms literally: punctuation, quotes and query operators neither split nor break a query',
      async () => {
        const cpp = doc({ memoryId: 'cpp', terms: ['c++', 'node.js'] });
        const c = doc({ memoryId: 'c', terms: ['c', 'node'] });
        await upsert([cpp, c]);

        expect(ids(await text(['c++']))).toEqual(['cpp']);
        expect(ids(await text(['node.js']))).toEqual(['cpp']);
        for (const hostile of [['"'], ['AND'], ['OR', 'NOT'], ['*'], ['owner:x'], ['NEAR(', ')'], ['c"++'], ['-', '^c']]) {
          await expect(text(hostile)).resolves.toEqual([]);
        }
      },
      testTimeoutMs,
    );

    it(
      'returns nothing for empty terms and handles long queries',
      async () => {
        await upsert([doc({ memoryId: 'x', terms: ['alpha'] })]);
        expect(await text([])).toEqual([]);
        expect(await text([''])).toEqual([]);
        const many = Array.from({ length: 400 }, (_, i) => `term${i}`);
        expect(ids(await text([...many, 'alpha']))).toEqual(['x']);
      },
      testTimeoutMs,
    );

    it(
      'ranks vectors by cosine similarity',
      async () => {
        await upsert([
          doc({ memoryId: 'same', vector: [2, 0, 0, 0] }),
          doc({ memoryId: 'close', vector: [0.8, 0.6, 0, 0] }),
          doc({ memoryId: 'orthogonal', vector: [0, 0, 3, 0] }),
          doc({ memoryId: 'opposite', vector: [-1, 0, 0, 0] }),
        ]);
        const hits = await vector([1, 0, 0, 0]);
        expect(ids(hits)).toEqual(['same', 'close', 'orthogonal', 'opposite']);
        const expected = [1, 0.8, 0, -1];
        hits.forEach((hit, i) => expect(Math.abs(hit.score - expected[i])).toBeLessThan(tolerance));
        expect(ids(await vector([1, 0, 0, 0], 2))).toEqual(['same', 'close']);
      },
      testTimeoutMs,
    );

    it(
      'filters by kind and by memory id inside the index, before the limit',
      async () => {
        // The preference ranks below the two facts on both legs: a filter applied after the limit would lose it.
        const factA = doc({ memoryId: 'fact-a', kind: 'fact', terms: ['seat', 'window', 'flight'], vector: [1, 0, 0, 0] });
        const factB = doc({ memoryId: 'fact-b', kind: 'fact', terms: ['seat', 'window', 'aisle'], vector: [0.99, 0.1, 0, 0] });
        const preference = doc({ memoryId: 'pref', kind: 'preference', terms: ['seat', 'legroom', 'exit'], vector: [0.5, 0.8, 0, 0] });
        const episode = doc({ memoryId: 'episode', kind: 'episode', terms: ['seat', 'lunch'], vector: [0.4, 0, 0.9, 0] });
        await upsert([factA, factB, preference, episode, ...fillers()]);
        const terms = ['seat', 'window'];
        const q = [1, 0, 0, 0];

        expect(ids(await index.searchText({ tenantId, userId, terms, limit: 1, kinds: ['preference'] }))).toEqual(['pref']);
        expect(ids(await index.searchVector({ tenantId, userId, vector: q, limit: 1, kinds: ['preference'] }))).toEqual(['pref']);
        expect(ids(await index.searchText({ tenantId, userId, terms, limit: 10, kinds: ['preference', 'episode'] })).sort()).toEqual([
          'episode',
          'pref',
        ]);
        expect(ids(await index.searchVector({ tenantId, userId, vector: q, limit: 10, kinds: ['preference', 'episode'] })).sort()).toEqual([
          'episode',
          'pref',
        ]);

        expect(ids(await index.searchText({ tenantId, userId, terms, limit: 1, memoryIds: ['episode', 'pref'] }))).toHaveLength(1);
        expect(
          ids(await index.searchText({ tenantId, userId, terms, limit: 10, memoryIds: ['episode', 'pref', 'missing'] })).sort(),
        ).toEqual(['episode', 'pref']);
        expect(ids(await index.searchVector({ tenantId, userId, vector: q, limit: 10, memoryIds: ['episode'] }))).toEqual(['episode']);
        // Both filters together; an empty list matches nothing.
        expect(ids(await index.searchText({ tenantId, userId, terms, limit: 10, kinds: ['fact'], memoryIds: ['fact-b', 'pref'] }))).toEqual(
          ['fact-b'],
        );
        expect(await index.searchText({ tenantId, userId, terms, limit: 10, kinds: [] })).toEqual([]);
        expect(await index.searchVector({ tenantId, userId, vector: q, limit: 10, memoryIds: [] })).toEqual([]);
        // Without a filter, everything active as before.
        expect(ids(await index.searchText({ tenantId, userId, terms, limit: 10 })).sort()).toEqual(['episode', 'fact-a', 'fact-b', 'pref']);
      },
      testTimeoutMs,
    );

    it(
      'ignores upserts whose revision is not newer: replays and reorderings change nothing',
      async () => {
        const v2 = doc({ memoryId: 'm', revision: 2, terms: ['helix'], vector: [0, 1, 0, 0] });
        const v1 = doc({ memoryId: 'm', revision: 1, terms: ['vim'], vector: [1, 0, 0, 0] });
        const v2other = doc({ memoryId: 'm', revision: 2, terms: ['emacs'], vector: [0, 0, 1, 0] });
        const expectHelixAtRevision2 = async () => {
          expect(await index.revisions(tenantId, userId, ['m', 'missing'])).toEqual(new Map([['m', 2]]));
          expect(ids(await text(['helix']))).toEqual(['m']);
          expect(await text(['vim'])).toEqual([]);
          expect(await text(['emacs'])).toEqual([]);
          expect((await vector([0, 1, 0, 0], 1))[0]).toEqual({ memoryId: 'm', score: expect.closeTo(1, 4) });
        };
        await upsert([v2]);
        await expectHelixAtRevision2();
        await upsert([v1]);
        await expectHelixAtRevision2();
        await upsert([v2other]);
        await expectHelixAtRevision2();
        await upsert([v1, v2other]);
        await expectHelixAtRevision2();

        const v3 = doc({ memoryId: 'm', revision: 3, terms: ['zed'], vector: [0, 0, 0, 1] });
        await upsert([v3]);
        await upsert([v3]);
        expect(ids(await text(['zed', 'helix']))).toEqual(['m']);
        expect(await text(['helix'])).toEqual([]);
        expect(await index.countUser(tenantId, userId)).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'returns only active documents, and a replayed older active revision does not revive one',
      async () => {
        await upsert([
          doc({ memoryId: 'active', terms: ['budget'], vector: [1, 0, 0, 0] }),
          doc({ memoryId: 'retracted', status: 'retracted', terms: ['budget'], vector: [1, 0, 0, 0] }),
          doc({ memoryId: 'archived', status: 'archived', terms: ['budget'], vector: [1, 0, 0, 0] }),
          doc({ memoryId: 'expired', status: 'expired', terms: ['budget'], vector: [1, 0, 0, 0] }),
          doc({ memoryId: 'later-retracted', revision: 1, terms: ['budget'], vector: [1, 0, 0, 0] }),
        ]);
        await upsert([doc({ memoryId: 'later-retracted', revision: 2, status: 'retracted', terms: ['budget'], vector: [1, 0, 0, 0] })]);
        await upsert([doc({ memoryId: 'later-retracted', revision: 1, terms: ['budget'], vector: [1, 0, 0, 0] })]);

        expect(ids(await text(['budget']))).toEqual(['active']);
        expect(ids(await vector([1, 0, 0, 0]))).toEqual(['active']);
        expect(await index.countUser(tenantId, userId)).toBe(5);
        expect((await index.revisions(tenantId, userId, ['later-retracted'])).get('later-retracted')).toBe(2);

        await upsert([doc({ memoryId: 'later-retracted', revision: 3, terms: ['budget'], vector: [1, 0, 0, 0] })]);
        expect(ids(await text(['budget'])).sort()).toEqual(['active', 'later-retracted']);
      },
      testTimeoutMs,
    );

    it(
      'never returns another user’s or tenant’s documents, even with identical terms and vectors',
      async () => {
        const otherTenant = uniqueName('tenant');
        const same = { terms: ['secret', 'plan'], vector: [1, 0, 0, 0], memoryId: 'same-id' } as const;
        await upsert([
          doc({ ...same, content: 'mine' }),
          aSearchDocument({ ...same, tenantId, userId: 'user-2', revision: 9, content: 'other user' }),
          aSearchDocument({ ...same, tenantId: otherTenant, userId, revision: 9, content: 'other tenant' }),
          // Ids that would collide if tenant and user were simply joined with ':'.
          aSearchDocument({ ...same, tenantId: `${tenantId}:x`, userId: 'y', memoryId: 'colon-a' }),
          aSearchDocument({ ...same, tenantId, userId: 'x:y', memoryId: 'colon-b' }),
        ]);

        expect(ids(await text(['secret', 'plan']))).toEqual(['same-id']);
        expect(ids(await vector([1, 0, 0, 0]))).toEqual(['same-id']);
        expect(ids(await index.searchText({ tenantId, userId: 'user-3', terms: ['secret'], limit: 10 }))).toEqual([]);
        expect(ids(await index.searchVector({ tenantId, userId: 'user-3', vector: [1, 0, 0, 0], limit: 10 }))).toEqual([]);
        expect(ids(await index.searchText({ tenantId: `${tenantId}:x`, userId: 'y', terms: ['secret'], limit: 10 }))).toEqual(['colon-a']);
        expect(ids(await index.searchText({ tenantId, userId: 'x:y', terms: ['secret'], limit: 10 }))).toEqual(['colon-b']);
        expect(await index.revisions(tenantId, userId, ['same-id'])).toEqual(new Map([['same-id', 1]]));
        expect(await index.revisions(tenantId, 'user-2', ['same-id'])).toEqual(new Map([['same-id', 9]]));
      },
      testTimeoutMs,
    );

    it(
      'deleteUser removes that user’s documents only; a later upsert starts afresh',
      async () => {
        await upsert([
          doc({ memoryId: 'mine', revision: 4, terms: ['shared'] }),
          aSearchDocument({ tenantId, userId: 'user-2', memoryId: 'theirs', terms: ['shared'] }),
        ]);
        await index.deleteUser(tenantId, userId);
        await settle();
        expect(await index.countUser(tenantId, userId)).toBe(0);
        expect(await text(['shared'])).toEqual([]);
        expect(await vector([1, 0, 0, 0])).toEqual([]);
        expect(await index.countUser(tenantId, 'user-2')).toBe(1);
        expect(ids(await index.searchText({ tenantId, userId: 'user-2', terms: ['shared'], limit: 10 }))).toEqual(['theirs']);

        await upsert([doc({ memoryId: 'mine', revision: 1, terms: ['shared'] })]);
        expect(ids(await text(['shared']))).toEqual(['mine']);
      },
      testTimeoutMs,
    );

    it(
      'truncate drops every document of every tenant',
      async () => {
        const otherTenant = uniqueName('tenant');
        await upsert([doc({ terms: ['gone'] }), aSearchDocument({ tenantId: otherTenant, userId: 'user-9', terms: ['gone'] })]);
        await index.truncate();
        await settle();
        expect(await index.countUser(tenantId, userId)).toBe(0);
        expect(await index.countUser(otherTenant, 'user-9')).toBe(0);
        expect(await text(['gone'])).toEqual([]);
        expect(await vector([1, 0, 0, 0])).toEqual([]);
      },
      testTimeoutMs,
    );
  });
}
