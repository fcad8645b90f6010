import type { FactStore, ProjectionVersions, SearchIndex, SessionStore } from '@engram/ports';
import { aMemoryRecord, aSearchDocument, aSessionTurn, eventually, uniqueName } from './fixtures';

/** How the suite writes and reads one kind of store, so the same checks run for facts, sessions and search. */
export interface VersionProbe<S> {
  /** Writes `count` items of the tenant, each recognisable by `tag`. */
  write(store: S, tenantId: string, tag: string, count: number): Promise<void>;
  /** The tags of the tenant's items, one per item found, sorted; in one read call (atomicity is checked per call). */
  read(store: S, tenantId: string): Promise<string[]>;
}

/** A fresh backend for one test: nothing shared with other tests (own file, database or alias). */
export interface VersionedBackend<S> {
  readonly versions: ProjectionVersions<S>;
  /** The store live code uses: follows the active version. */
  readonly live: S;
  /** The same backend seen by another process (its own connection and pointer cache). */
  reopen(): Promise<{ versions: ProjectionVersions<S>; live: S }>;
  /** A store written the way engram wrote before versioning existed (unsuffixed names), when the adapter had one. */
  readonly legacy?: S;
  /** Waits until writes to `store` are visible to reads (a search refresh). */
  settle?(store: S): Promise<void>;
  close(): Promise<void>;
}

export interface VersionContractOptions {
  testTimeoutMs?: number;
  /** The adapter had an unversioned store before (its backends give `legacy`). Default true. */
  hadUnversionedStore?: boolean;
}

/**
 * The projection-versions contract (SQLite, MongoDB, Elasticsearch): data from
 * before versioning is version 1; a new version is empty and invisible until
 * activated; activation moves every reader at once, never showing a mix; the
 * old version can be dropped, the active one cannot.
 */
export function testProjectionVersions<S extends object>(
  label: string,
  probe: VersionProbe<S>,
  open: () => Promise<VersionedBackend<S>>,
  options: VersionContractOptions = {},
): void {
  const testTimeoutMs = options.testTimeoutMs ?? 30_000;

  describe(`ProjectionVersions contract (${label})`, () => {
    let backend: VersionedBackend<S>;
    let tenantId: string;
    const write = async (store: S, tag: string, count: number) => {
      await probe.write(store, tenantId, tag, count);
      await backend.settle?.(store);
    };
    const read = (store: S) => probe.read(store, tenantId);

    beforeEach(async () => {
      backend = await open();
      tenantId = uniqueName('tenant');
    }, testTimeoutMs);
    afterEach(async () => {
      await backend.close();
    }, testTimeoutMs);

    // Only for stores that existed before versioning (SQLite, Mongo); Elasticsearch was versioned from the start.
    if (options.hadUnversionedStore !== false) {
      it(
        'treats data written before versioning as version 1',
        async () => {
          if (!backend.legacy) throw new Error('the backend must give the legacy store (or pass hadUnversionedStore: false)');
          await write(backend.legacy, 'old', 2);
          expect(await backend.versions.active()).toBe(1);
          expect(await read(backend.live)).toEqual(['old', 'old']);
          expect(await backend.versions.list()).toContain(1);
        },
        testTimeoutMs,
      );
    }

    it(
      'opens a new version empty and invisible to readers until it is activated',
      async () => {
        await write(backend.live, 'one', 2);
        const two = await backend.versions.open(2);
        expect(await read(two)).toEqual([]);
        await write(two, 'two', 3);
        expect(await read(backend.live)).toEqual(['one', 'one']);
        expect(await backend.versions.active()).toBe(1);
        expect(await backend.versions.list()).toEqual([1, 2]);
      },
      testTimeoutMs,
    );

    it(
      'activation moves readers and live writers of every process to the new version',
      async () => {
        const other = await backend.reopen();
        await write(backend.live, 'one', 1);
        expect(await read(other.live)).toEqual(['one']);
        await write(await backend.versions.open(2), 'two', 2);
        await backend.versions.activate(2);
        expect(await backend.versions.active()).toBe(2);
        expect(await read(backend.live)).toEqual(['two', 'two']);
        await eventually(
          async () => (await other.versions.active()) === 2 && (await read(other.live)).join() === 'two,two',
          'the other process follows the pointer',
        );
        await write(backend.live, 'new', 1);
        expect(await read(await backend.versions.open(2))).toEqual(['new', 'two', 'two']);
        expect(await read(await backend.versions.open(1))).toEqual(['one']);
      },
      testTimeoutMs,
    );

    it(
      'readers see all of the old version or all of the new one while it is activated, never a mix',
      async () => {
        await write(backend.live, 'a', 3);
        await write(await backend.versions.open(2), 'b', 3);
        const seen: string[] = [];
        let activated = false;
        const reader = async () => {
          // Keep reading until a few reads after the activation finished.
          for (let after = 0; after < 3;) {
            seen.push((await read(backend.live)).join());
            if (activated) after++;
          }
        };
        const readers = [reader(), reader(), reader()];
        await backend.versions.activate(2);
        activated = true;
        await Promise.all(readers);
        expect(new Set(seen).size).toBeLessThanOrEqual(2);
        for (const result of seen) expect(['a,a,a', 'b,b,b']).toContain(result);
        expect(seen[seen.length - 1]).toBe('b,b,b');
      },
      testTimeoutMs,
    );

    it(
      'drops an old version (reopening it gives an empty one) but refuses to drop the active version',
      async () => {
        await write(backend.live, 'one', 1);
        await write(await backend.versions.open(2), 'two', 1);
        await backend.versions.activate(2);
        await expect(backend.versions.drop(2)).rejects.toThrow(/active/);
        await backend.versions.drop(1);
        expect(await backend.versions.list()).toEqual([2]);
        expect(await read(await backend.versions.open(1))).toEqual([]);
        expect(await read(backend.live)).toEqual(['two']);
      },
      testTimeoutMs,
    );
  });
}

const sorted = (tags: string[]) => tags.sort();

export const factStoreProbe: VersionProbe<FactStore> = {
  async write(store, tenantId, tag, count) {
    await store.save(
      Array.from({ length: count }, () => aMemoryRecord({ tenantId, userId: 'u', attribute: uniqueName('attr'), value: tag })),
    );
  },
  async read(store, tenantId) {
    return sorted((await store.list({ tenantId, userId: 'u' })).map((r) => r.value));
  },
};

export const sessionStoreProbe: VersionProbe<SessionStore> = {
  async write(store, tenantId, tag, count) {
    await store.append(Array.from({ length: count }, () => aSessionTurn({ tenantId, userId: 'u', sessionId: 's', text: tag })));
  },
  async read(store, tenantId) {
    return sorted((await store.recent(tenantId, 'u', 's', 1000)).map((t) => t.text));
  },
};

export const searchIndexProbe: VersionProbe<SearchIndex> = {
  async write(store, tenantId, tag, count) {
    await store.upsert(
      Array.from({ length: count }, () =>
        aSearchDocument({ tenantId, userId: 'u', memoryId: `${tag}~${uniqueName('m')}`, terms: ['shared', tag] }),
      ),
    );
  },
  async read(store, tenantId) {
    const hits = await store.searchText({ tenantId, userId: 'u', terms: ['shared'], limit: 1000 });
    return sorted(hits.map((hit) => hit.memoryId.split('~')[0]));
  },
};
