import type { MemoryRecord } from '@engram/contracts';
import type { FactStore } from '@engram/ports';
import { aMemoryRecord, minutesAfterStart, uniqueName } from './fixtures';

export interface StoreContractOptions<TStore> {
  teardown?: (store: TStore) => Promise<void>;
  /** Waits until writes are visible to reads (e.g. a search refresh). Default: nothing to wait for. */
  settle?: (store: TStore) => Promise<void>;
  /** Jest timeout of each test. Default 15 s. */
  testTimeoutMs?: number;
}

const byId = (records: readonly MemoryRecord[]) =>
  [...records].sort((a, b) => (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0));

/**
 * The fact-store contract (SQLite, MongoDB): conditional writes by revision,
 * lookups by id and merge key, filtered lists, and per-user isolation.
 */
export function testFactStore(factory: () => Promise<FactStore>, options: StoreContractOptions<FactStore> = {}): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('FactStore contract', () => {
    let store: FactStore;
    let tenantId: string;
    const userId = 'user-1';
    const settle = () => options.settle?.(store) ?? Promise.resolve();
    const save = async (records: readonly MemoryRecord[]) => {
      await store.save(records);
      await settle();
    };
    /** A record of this test's tenant and user. */
    const record = (overrides: Partial<MemoryRecord> = {}) => aMemoryRecord({ tenantId, userId, ...overrides });

    beforeAll(async () => {
      store = await factory();
    });
    beforeEach(() => {
      tenantId = uniqueName('tenant');
    });
    afterAll(async () => {
      if (store) await options.teardown?.(store);
    });

    it(
      'saves records and gets them back whole, by id',
      async () => {
        const editor = record({
          attribute: 'editor',
          history: [
            {
              version: 1,
              value: 'vim',
              content: 'I use vim',
              validFrom: minutesAfterStart(0),
              validTo: minutesAfterStart(5),
              recordedAt: minutesAfterStart(0),
              supersededAt: minutesAfterStart(5),
              sourceTurnIds: ['t0'],
            },
          ],
          version: 2,
          revision: 2,
          validTo: null,
        });
        const db = record({ attribute: 'database', value: '数据库用 PostgreSQL', kind: 'fact', entities: ['PostgreSQL'] });
        await save([editor, db]);

        expect(byId(await store.get(tenantId, userId, [editor.memoryId, db.memoryId, 'missing']))).toEqual(byId([editor, db]));
        expect(await store.get(tenantId, userId, [db.memoryId])).toEqual([db]);
        expect(await store.get(tenantId, userId, [])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'ignores a save whose revision is older than or equal to the stored one',
      async () => {
        const r2 = record({ revision: 2, value: 'helix', content: 'I prefer helix' });
        await save([r2]);
        await save([record({ revision: 1, value: 'vim' })]);
        await save([record({ revision: 2, value: 'emacs' })]);
        expect(await store.get(tenantId, userId, [r2.memoryId])).toEqual([r2]);

        const r3 = record({ revision: 3, status: 'retracted', validTo: minutesAfterStart(10) });
        await save([r3]);
        expect(await store.get(tenantId, userId, [r3.memoryId])).toEqual([r3]);
      },
      testTimeoutMs,
    );

    it(
      'a newer revision replaces the record whole: the optional fields it lacks are gone',
      async () => {
        const optional = { expiresAt: minutesAfterStart(60), statusReason: 'said once', speaker: 'assistant', sensitive: true };
        const diet = record({ attribute: 'diet', value: 'vegetarian', ...optional });
        const city = record({ attribute: 'city', value: 'Lyon' });
        await save([diet, city]);
        // Several records in one save (a bulk write where the adapter has one), then a single one.
        const { expiresAt, statusReason, speaker, sensitive, ...plain } = diet;
        const vegan = { ...plain, revision: 2, value: 'vegan' };
        await save([vegan, { ...city, revision: 2 }]);
        expect(byId(await store.get(tenantId, userId, [diet.memoryId, city.memoryId]))).toEqual(byId([vegan, { ...city, revision: 2 }]));
        await save([{ ...vegan, ...optional, revision: 3 }]);
        await save([{ ...vegan, revision: 4 }]);
        expect(await store.get(tenantId, userId, [diet.memoryId])).toEqual([{ ...vegan, revision: 4 }]);
      },
      testTimeoutMs,
    );

    it(
      'keeps the newest revision whatever the order inside one save',
      async () => {
        const r3 = record({ revision: 3, value: 'zed' });
        await save([r3, record({ revision: 2, value: 'helix' }), record({ revision: 1 })]);
        expect(await store.get(tenantId, userId, [r3.memoryId])).toEqual([r3]);
      },
      testTimeoutMs,
    );

    it(
      'one save of many users’ records, some older than stored, keeps each memory’s newest revision',
      async () => {
        // Several users in one save (a rebuild or resolver batch), interleaved: stale records of
        // some users must not stop, nor be confused with, the fresh records of the others.
        const users = Array.from({ length: 12 }, (_, u) => `batch-user-${u}`);
        const of = (u: number, attribute: string, revision: number) =>
          aMemoryRecord({ tenantId, userId: users[u], attribute, revision, value: `${attribute}-${revision}` });
        await save(users.map((_, u) => of(u, 'editor', 2)));
        const batch = users.flatMap((_, u) => [of(u, 'editor', u % 3 === 0 ? 1 : 3), of(u, 'database', 1), of(u, 'database', 2)]);
        await save(batch);
        for (const [u, user] of users.entries()) {
          const stored = await store.list({ tenantId, userId: user });
          expect({ user, revisions: stored.map((r) => [r.attribute, r.revision, r.value]) }).toEqual({
            user,
            // Same createdAt: memory id order (mem-user/database, mem-user/editor).
            revisions: [
              ['database', 2, 'database-2'],
              ['editor', u % 3 === 0 ? 2 : 3, u % 3 === 0 ? 'editor-2' : 'editor-3'],
            ],
          });
        }
      },
      testTimeoutMs,
    );

    it(
      'applying the same decisions twice, or reordered, gives the same state',
      async () => {
        const decisions = [
          record({ attribute: 'editor', revision: 1, value: 'vim' }),
          record({ attribute: 'editor', revision: 2, value: 'helix' }),
          record({ attribute: 'database', revision: 1, value: 'postgres', createdAt: minutesAfterStart(1) }),
          record({ attribute: 'editor', revision: 3, value: 'helix', mentionCount: 2 }),
          record({ attribute: 'database', revision: 2, status: 'archived', createdAt: minutesAfterStart(1) }),
        ];
        for (const d of decisions) await save([d]);
        const once = await store.list({ tenantId, userId });
        for (const d of decisions) await save([d]);
        expect(await store.list({ tenantId, userId })).toEqual(once);
        for (const d of [...decisions].reverse()) await save([d]);
        expect(await store.list({ tenantId, userId })).toEqual(once);
        expect(once.map((r) => [r.attribute, r.revision])).toEqual([
          ['editor', 3],
          ['database', 2],
        ]);
      },
      testTimeoutMs,
    );

    it(
      'finds records by merge key',
      async () => {
        const editor = record({ attribute: 'editor' });
        const budget = record({ attribute: 'budget', createdAt: minutesAfterStart(1) });
        const name = record({ attribute: 'name', kind: 'profile', pinned: true, createdAt: minutesAfterStart(2) });
        await save([editor, budget, name]);
        expect(byId(await store.findByMergeKeys(tenantId, userId, ['user/editor', 'user/name', 'user/unknown']))).toEqual(
          byId([editor, name]),
        );
        expect(await store.findByMergeKeys(tenantId, userId, [])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'lists a user’s memories oldest first, filtered by status and pinned',
      async () => {
        const c = record({ attribute: 'c', createdAt: minutesAfterStart(3), status: 'retracted' });
        const a = record({ attribute: 'a', createdAt: minutesAfterStart(1), pinned: true, kind: 'profile' });
        const b = record({ attribute: 'b', createdAt: minutesAfterStart(2) });
        const d = record({ attribute: 'd', createdAt: minutesAfterStart(4), status: 'archived', pinned: true });
        await save([c, a, d, b]);

        const ids = (records: readonly MemoryRecord[]) => records.map((r) => r.attribute);
        expect(ids(await store.list({ tenantId, userId }))).toEqual(['a', 'b', 'c', 'd']);
        expect(ids(await store.list({ tenantId, userId, statuses: ['active'] }))).toEqual(['a', 'b']);
        expect(ids(await store.list({ tenantId, userId, statuses: ['retracted', 'archived'] }))).toEqual(['c', 'd']);
        expect(ids(await store.list({ tenantId, userId, pinned: true }))).toEqual(['a', 'd']);
        expect(ids(await store.list({ tenantId, userId, pinned: false }))).toEqual(['b', 'c']);
        expect(ids(await store.list({ tenantId, userId, statuses: ['active'], pinned: true }))).toEqual(['a']);
      },
      testTimeoutMs,
    );

    it(
      'select reads the memories named by id, by merge key and the active pinned ones in one call, oldest first, each once',
      async () => {
        const pinned = record({ attribute: 'name', kind: 'profile', pinned: true, createdAt: minutesAfterStart(1) });
        const retractedPin = record({ attribute: 'city', pinned: true, status: 'retracted', createdAt: minutesAfterStart(2) });
        const hit = record({ attribute: 'editor', createdAt: minutesAfterStart(3) });
        const summary = record({ attribute: 'summary', mergeKey: 'session/summary:s1', createdAt: minutesAfterStart(4) });
        const unnamed = record({ attribute: 'budget', createdAt: minutesAfterStart(0) });
        const otherUsersPin = aMemoryRecord({ tenantId, userId: 'user-2', attribute: 'name', pinned: true });
        await save([summary, hit, unnamed, retractedPin, pinned, otherUsersPin]);
        const all = await store.select({
          tenantId,
          userId,
          memoryIds: [hit.memoryId, pinned.memoryId, retractedPin.memoryId, 'missing', otherUsersPin.memoryId],
          mergeKeys: [summary.mergeKey, hit.mergeKey, 'user/none'],
          pinned: true,
        });
        expect(all).toEqual([pinned, retractedPin, hit, summary]);
        expect(await store.select({ tenantId, userId, pinned: true })).toEqual([pinned]);
        expect(await store.select({ tenantId, userId, memoryIds: [hit.memoryId, unnamed.memoryId] })).toEqual([unnamed, hit]);
        expect(await store.select({ tenantId, userId, mergeKeys: [summary.mergeKey] })).toEqual([summary]);
        expect(await store.select({ tenantId, userId, memoryIds: [], mergeKeys: [], pinned: false })).toEqual([]);
        expect(await store.select({ tenantId, userId: 'user-2', pinned: true })).toEqual([otherUsersPin]);
      },
      testTimeoutMs,
    );

    it(
      'glossing reads the user’s memories that gloss a name, any status, oldest first, and follows their rewrites',
      async () => {
        const gloss = (attribute: string, content: string, overrides: Partial<MemoryRecord> = {}) =>
          record({ attribute, content, ...overrides });
        const fullWidth = gloss('db', '主库是白鲸（Blackwhale）', { createdAt: minutesAfterStart(2) });
        const ascii = gloss('cloud', 'We run on Amazon Web Services (AWS)', { createdAt: minutesAfterStart(1), status: 'retracted' });
        const plain = gloss('phone', 'call [PHONE]（12）, ok :)', { createdAt: minutesAfterStart(0) });
        const summary = gloss('summary', '白鲸（Blackwhale）升级了', { kind: 'summary', mergeKey: 'session/summary:s1' });
        const theirs = aMemoryRecord({ tenantId, userId: 'user-2', content: '白鲸（Blackwhale）' });
        await save([fullWidth, ascii, plain, summary, theirs]);

        // Parentheses that gloss no name ("[PHONE]（12）") and a summary's gloss are not read.
        expect(await store.glossing(tenantId, userId)).toEqual([ascii, fullWidth]);

        // A rewrite that drops the gloss drops the memory; one that adds a gloss adds it.
        await save([
          { ...fullWidth, revision: 2, content: '主库是白鲸' },
          { ...summary, revision: 2 },
        ]);
        const late = gloss('late', 'pg (aka PostgreSQL)', { createdAt: minutesAfterStart(5) });
        await save([late]);
        expect(await store.glossing(tenantId, userId)).toEqual([ascii, late]);
        expect(await store.glossing(tenantId, 'user-2')).toEqual([theirs]);
        await store.deleteUser(tenantId, userId);
        await settle();
        expect(await store.glossing(tenantId, userId)).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'isolates tenants and users, even with the same memory ids and merge keys',
      async () => {
        const otherTenant = uniqueName('tenant');
        const mine = record({ revision: 1, value: 'mine' });
        const otherUser = aMemoryRecord({ tenantId, userId: 'user-2', revision: 5, value: 'other user' });
        const otherTenantsUser = aMemoryRecord({ tenantId: otherTenant, userId, revision: 7, value: 'other tenant' });
        expect(otherUser.memoryId).toBe(mine.memoryId);
        await save([mine, otherUser, otherTenantsUser]);

        expect(await store.get(tenantId, userId, [mine.memoryId])).toEqual([mine]);
        expect(await store.findByMergeKeys(tenantId, userId, [mine.mergeKey])).toEqual([mine]);
        expect(await store.list({ tenantId, userId })).toEqual([mine]);
        expect(await store.list({ tenantId, userId: 'user-2' })).toEqual([otherUser]);
        expect(await store.list({ tenantId: otherTenant, userId })).toEqual([otherTenantsUser]);
        expect(await store.list({ tenantId, userId: 'user-3' })).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'listUsers reads every memory of the listed users in one call, each user’s oldest first, and no one else’s',
      async () => {
        const otherTenant = uniqueName('tenant');
        const of = (t: string, u: string, attribute: string, minute: number, status: MemoryRecord['status'] = 'active') =>
          aMemoryRecord({ tenantId: t, userId: u, attribute, createdAt: minutesAfterStart(minute), status });
        const u1 = [of(tenantId, userId, 'b', 2), of(tenantId, userId, 'a', 1, 'retracted'), of(tenantId, userId, 'c', 3, 'archived')];
        const u2 = [of(tenantId, 'user-2', 'z', 0)];
        const sameUserOtherTenant = [of(otherTenant, userId, 'x', 0)];
        const unlisted = [of(tenantId, 'user-3', 'y', 0)];
        await save([...u1, ...u2, ...sameUserOtherTenant, ...unlisted]);
        const byUser = (records: readonly MemoryRecord[]) => {
          const users = new Map<string, string[]>();
          for (const r of records) users.set(`${r.tenantId}/${r.userId}`, [...(users.get(`${r.tenantId}/${r.userId}`) ?? []), r.attribute]);
          return Object.fromEntries(users);
        };

        const read = await store.listUsers([
          { tenantId, userId },
          { tenantId, userId: 'user-2' },
          { tenantId, userId },
          { tenantId: otherTenant, userId },
          { tenantId, userId: 'nobody' },
        ]);
        expect(read).toHaveLength(5);
        expect(byUser(read)).toEqual({
          [`${tenantId}/${userId}`]: ['a', 'b', 'c'],
          [`${tenantId}/user-2`]: ['z'],
          [`${otherTenant}/${userId}`]: ['x'],
        });
        expect(read.find((r) => r.attribute === 'b')).toEqual(u1[0]);
        expect(await store.listUsers([{ tenantId, userId: 'user-2' }])).toEqual(u2);
        expect(await store.listUsers([])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'users lists every tenant and user holding memories, once each, sorted',
      async () => {
        const otherTenant = `${tenantId}-b`;
        await save([
          record(),
          record({ mergeKey: 'user/second' }),
          aMemoryRecord({ tenantId, userId: 'user-0' }),
          aMemoryRecord({ tenantId: otherTenant, userId }),
        ]);
        const mine = (await store.users()).filter((u) => u.tenantId === tenantId || u.tenantId === otherTenant);
        expect(mine).toEqual([
          { tenantId, userId: 'user-0' },
          { tenantId, userId },
          { tenantId: otherTenant, userId },
        ]);
        await store.deleteUser(tenantId, 'user-0');
        await settle();
        expect((await store.users()).filter((u) => u.tenantId === tenantId)).toEqual([{ tenantId, userId }]);
      },
      testTimeoutMs,
    );

    it(
      "usersOf pages one tenant's users, once each, sorted, after the cursor",
      async () => {
        await save([
          aMemoryRecord({ tenantId, userId: 'u-b' }),
          aMemoryRecord({ tenantId, userId: 'u-b', mergeKey: 'user/second' }),
          aMemoryRecord({ tenantId, userId: 'u-a' }),
          aMemoryRecord({ tenantId, userId: '小周' }),
          aMemoryRecord({ tenantId: `${tenantId}-b`, userId: 'u-0' }),
        ]);
        expect(await store.usersOf(tenantId, { limit: 2 })).toEqual(['u-a', 'u-b']);
        expect(await store.usersOf(tenantId, { after: 'u-b', limit: 2 })).toEqual(['小周']);
        expect(await store.usersOf(tenantId, { after: '小周', limit: 2 })).toEqual([]);
        expect(await store.usersOf(`${tenantId}-b`, { limit: 10 })).toEqual(['u-0']);
        await store.deleteUser(tenantId, 'u-a');
        await settle();
        expect(await store.usersOf(tenantId, { limit: 10 })).toEqual(['u-b', '小周']);
      },
      testTimeoutMs,
    );

    it(
      'deleteUser removes that user’s memories only',
      async () => {
        const mine = record();
        const theirs = aMemoryRecord({ tenantId, userId: 'user-2' });
        const sameUserOtherTenant = aMemoryRecord({ tenantId: uniqueName('tenant'), userId });
        await save([mine, theirs, sameUserOtherTenant]);
        await store.deleteUser(tenantId, userId);
        await settle();
        expect(await store.list({ tenantId, userId })).toEqual([]);
        expect(await store.get(tenantId, userId, [mine.memoryId])).toEqual([]);
        expect(await store.list({ tenantId, userId: 'user-2' })).toEqual([theirs]);
        expect(await store.list({ tenantId: sameUserOtherTenant.tenantId, userId })).toEqual([sameUserOtherTenant]);

        // Forgotten means gone: a replayed old revision is written anew, not compared to a ghost.
        await save([mine]);
        expect(await store.get(tenantId, userId, [mine.memoryId])).toEqual([mine]);
      },
      testTimeoutMs,
    );

    it(
      'truncate drops every memory of every tenant',
      async () => {
        const otherTenant = uniqueName('tenant');
        await save([record(), aMemoryRecord({ tenantId: otherTenant, userId: 'user-9' })]);
        await store.truncate();
        await settle();
        expect(await store.list({ tenantId, userId })).toEqual([]);
        expect(await store.list({ tenantId: otherTenant, userId: 'user-9' })).toEqual([]);
      },
      testTimeoutMs,
    );
  });
}
