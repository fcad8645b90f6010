import type { SessionStore, SessionTurn } from '@engram/ports';
import type { StoreContractOptions } from './fact-store.contract';
import { aSessionTurn, minutesAfterStart, uniqueName } from './fixtures';

/** The session-store contract (SQLite, MongoDB): idempotent appends, the recent window, isolation. */
export function testSessionStore(factory: () => Promise<SessionStore>, options: StoreContractOptions<SessionStore> = {}): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('SessionStore contract', () => {
    let store: SessionStore;
    let tenantId: string;
    const userId = 'user-1';
    const sessionId = 'session-1';
    const settle = () => options.settle?.(store) ?? Promise.resolve();
    const append = async (turns: readonly SessionTurn[]) => {
      await store.append(turns);
      await settle();
    };
    const turn = (overrides: Partial<SessionTurn> = {}) => aSessionTurn({ tenantId, userId, sessionId, ...overrides });
    const texts = (turns: readonly SessionTurn[]) => turns.map((t) => t.text);

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
      'returns the last turns of a session, oldest first, whatever the append order',
      async () => {
        const turns = [0, 1, 2, 3, 4].map((i) => turn({ turnId: `t${i}`, text: `turn ${i}`, occurredAt: minutesAfterStart(i) }));
        await append([turns[3], turns[0]]);
        await append([turns[4], turns[1], turns[2]]);

        expect(await store.recent(tenantId, userId, sessionId, 3)).toEqual([turns[2], turns[3], turns[4]]);
        expect(await store.recent(tenantId, userId, sessionId, 50)).toEqual(turns);
        expect(await store.recent(tenantId, userId, sessionId, 0)).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'keeps every field, including an optional speaker',
      async () => {
        const withSpeaker = turn({ role: 'assistant', speaker: 'Ada', text: '推荐你去「蓝瓶咖啡」', occurredAt: minutesAfterStart(1) });
        const without = turn({ role: 'user', text: 'which café was it?', occurredAt: minutesAfterStart(2) });
        await append([withSpeaker, without]);
        const [first, second] = await store.recent(tenantId, userId, sessionId, 10);
        expect(first).toEqual(withSpeaker);
        expect(second).toEqual(without);
        expect(second.speaker).toBeUndefined();
      },
      testTimeoutMs,
    );

    it(
      'breaks occurredAt ties by insertion order',
      async () => {
        const at = minutesAfterStart(7);
        await append([turn({ text: 'a', occurredAt: at }), turn({ text: 'b', occurredAt: at }), turn({ text: 'c', occurredAt: at })]);
        await append([turn({ text: 'd', occurredAt: at })]);
        expect(texts(await store.recent(tenantId, userId, sessionId, 10))).toEqual(['a', 'b', 'c', 'd']);
        expect(texts(await store.recent(tenantId, userId, sessionId, 2))).toEqual(['c', 'd']);
      },
      testTimeoutMs,
    );

    it(
      'finds the previous session: the other session with the latest turn at or before an instant, this user only',
      async () => {
        await append([
          turn({ turnId: 'a1', sessionId: 'mon', text: 'monday', occurredAt: minutesAfterStart(1) }),
          turn({ turnId: 'b1', sessionId: 'tue', text: 'tuesday', occurredAt: minutesAfterStart(10) }),
          turn({ turnId: 'a2', sessionId: 'mon', text: 'monday again', occurredAt: minutesAfterStart(5) }),
          turn({ turnId: 'c1', sessionId: 'now', text: 'today', occurredAt: minutesAfterStart(20) }),
          aSessionTurn({ tenantId, userId: 'user-2', sessionId: 'theirs', turnId: 'x', occurredAt: minutesAfterStart(15) }),
        ]);
        expect(await store.previousSession(tenantId, userId, 'now', minutesAfterStart(20))).toBe('tue');
        expect(await store.previousSession(tenantId, userId, 'tue', minutesAfterStart(20))).toBe('now');
        expect(await store.previousSession(tenantId, userId, 'now', minutesAfterStart(9))).toBe('mon');
        expect(await store.previousSession(tenantId, userId, 'mon', minutesAfterStart(9))).toBeNull();
        expect(await store.previousSession(tenantId, 'user-3', 'now', minutesAfterStart(30))).toBeNull();
        expect(await store.previousSession(uniqueName('tenant'), userId, 'now', minutesAfterStart(30))).toBeNull();
      },
      testTimeoutMs,
    );

    it(
      'stores a turn sent twice once',
      async () => {
        const once = turn({ turnId: 'same', text: 'hello' });
        await append([once, once]);
        await append([once]);
        expect(await store.countUser(tenantId, userId)).toBe(1);
        expect(await store.recent(tenantId, userId, sessionId, 10)).toEqual([once]);
      },
      testTimeoutMs,
    );

    it(
      'keeps sessions, users and tenants apart, even with the same turn ids',
      async () => {
        const otherTenant = uniqueName('tenant');
        await append([
          turn({ turnId: 't1', text: 'mine' }),
          turn({ turnId: 't2', sessionId: 'session-2', text: 'my other session' }),
          aSessionTurn({ tenantId, userId: 'user-2', sessionId, turnId: 't1', text: 'other user' }),
          aSessionTurn({ tenantId: otherTenant, userId, sessionId, turnId: 't1', text: 'other tenant' }),
        ]);
        expect(texts(await store.recent(tenantId, userId, sessionId, 10))).toEqual(['mine']);
        expect(texts(await store.recent(tenantId, userId, 'session-2', 10))).toEqual(['my other session']);
        expect(texts(await store.recent(tenantId, 'user-2', sessionId, 10))).toEqual(['other user']);
        expect(texts(await store.recent(otherTenant, userId, sessionId, 10))).toEqual(['other tenant']);
        expect(await store.countUser(tenantId, userId)).toBe(2);
        expect(await store.countUser(tenantId, 'user-2')).toBe(1);
        expect(await store.countUser(tenantId, 'user-3')).toBe(0);
      },
      testTimeoutMs,
    );

    it(
      "finds a user's turns by id across sessions, oldest first, that user's only",
      async () => {
        const later = turn({ turnId: 't1', text: '不是MySQL，是PostgreSQL', occurredAt: minutesAfterStart(5) });
        const earlier = turn({
          turnId: 't0',
          sessionId: 'session-2',
          text: '我们用 MySQL',
          occurredAt: minutesAfterStart(1),
          speaker: '老周',
        });
        await append([
          later,
          earlier,
          turn({ turnId: 't2', text: 'not asked for' }),
          aSessionTurn({ tenantId, userId: 'user-2', sessionId, turnId: 't0', text: 'other user' }),
          aSessionTurn({ tenantId: uniqueName('tenant'), userId, sessionId, turnId: 't1', text: 'other tenant' }),
        ]);
        expect(await store.turnsById(tenantId, userId, ['t1', 't0', 'missing', 't1'])).toEqual([earlier, later]);
        expect(await store.turnsById(tenantId, userId, [])).toEqual([]);
        expect(await store.turnsById(tenantId, 'user-3', ['t0'])).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'lists the turn ids of the sessions asked for, sorted, for that user only',
      async () => {
        const otherTenant = uniqueName('tenant');
        await append([
          turn({ turnId: 't3', text: 'three', occurredAt: minutesAfterStart(1) }),
          turn({ turnId: 't1', text: 'one', occurredAt: minutesAfterStart(2) }),
          turn({ turnId: 't2', sessionId: 'session-2', text: 'two' }),
          turn({ turnId: 't9', sessionId: 'session-9', text: 'nine' }),
          aSessionTurn({ tenantId, userId: 'user-2', sessionId, turnId: 't7', text: 'other user' }),
          aSessionTurn({ tenantId: otherTenant, userId, sessionId, turnId: 't8', text: 'other tenant' }),
        ]);
        expect(await store.turnIds(tenantId, userId, [sessionId])).toEqual(['t1', 't3']);
        expect(await store.turnIds(tenantId, userId, [sessionId, 'session-2'])).toEqual(['t1', 't2', 't3']);
        expect(await store.turnIds(tenantId, userId, ['session-404'])).toEqual([]);
        expect(await store.turnIds(tenantId, userId, [])).toEqual([]);
        expect(await store.turnIds(otherTenant, userId, [sessionId])).toEqual(['t8']);
      },
      testTimeoutMs,
    );

    it(
      'deleteUser removes that user’s turns only',
      async () => {
        await append([turn({ text: 'mine' }), aSessionTurn({ tenantId, userId: 'user-2', sessionId, text: 'theirs' })]);
        await store.deleteUser(tenantId, userId);
        await settle();
        expect(await store.countUser(tenantId, userId)).toBe(0);
        expect(await store.recent(tenantId, userId, sessionId, 10)).toEqual([]);
        expect(texts(await store.recent(tenantId, 'user-2', sessionId, 10))).toEqual(['theirs']);
      },
      testTimeoutMs,
    );

    it(
      'truncate drops every turn of every tenant',
      async () => {
        const otherTenant = uniqueName('tenant');
        await append([turn(), aSessionTurn({ tenantId: otherTenant, userId: 'user-9' })]);
        await store.truncate();
        await settle();
        expect(await store.countUser(tenantId, userId)).toBe(0);
        expect(await store.countUser(otherTenant, 'user-9')).toBe(0);
      },
      testTimeoutMs,
    );
  });
}
