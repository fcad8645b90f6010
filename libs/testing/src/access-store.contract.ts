import type { AccessStore } from '@engram/ports';
import type { StoreContractOptions } from './fact-store.contract';
import { minutesAfterStart, uniqueName } from './fixtures';

/** The access-store contract (SQLite, MongoDB): hits counted once per access event, last access = latest. */
export function testAccessStore(factory: () => Promise<AccessStore>, options: StoreContractOptions<AccessStore> = {}): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('AccessStore contract', () => {
    let store: AccessStore;
    let tenantId: string;
    const userId = 'user-1';
    const settle = () => options.settle?.(store) ?? Promise.resolve();
    const record = async (eventId: string, memoryIds: readonly string[], at: string, user = userId, tenant = tenantId) => {
      await store.record(eventId, tenant, user, memoryIds, at);
      await settle();
    };
    const event = () => uniqueName('access-event');

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
      'counts hits per memory and keeps the latest access, whatever the arrival order',
      async () => {
        await record(event(), ['m1', 'm2'], minutesAfterStart(5));
        await record(event(), ['m1'], minutesAfterStart(9));
        await record(event(), ['m1'], minutesAfterStart(1));

        const stats = await store.get(tenantId, userId, ['m1', 'm2', 'never']);
        expect(stats).toEqual(
          new Map([
            ['m1', { memoryId: 'm1', hits: 3, lastAccessAt: minutesAfterStart(9) }],
            ['m2', { memoryId: 'm2', hits: 1, lastAccessAt: minutesAfterStart(5) }],
          ]),
        );
        expect(await store.get(tenantId, userId, [])).toEqual(new Map());
      },
      testTimeoutMs,
    );

    it(
      'counts an access event once, however often it is replayed',
      async () => {
        const id = event();
        await record(id, ['m1', 'm2'], minutesAfterStart(3));
        await record(id, ['m1', 'm2'], minutesAfterStart(3));
        await record(id, ['m1', 'm2'], minutesAfterStart(3));
        const stats = await store.get(tenantId, userId, ['m1', 'm2']);
        expect(stats.get('m1')?.hits).toBe(1);
        expect(stats.get('m2')?.hits).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'counts a memory once per event even if the event lists it twice',
      async () => {
        await record(event(), ['m1', 'm1'], minutesAfterStart(3));
        expect((await store.get(tenantId, userId, ['m1'])).get('m1')?.hits).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'keeps users and tenants apart',
      async () => {
        const otherTenant = uniqueName('tenant');
        await record(event(), ['m1'], minutesAfterStart(1));
        await record(event(), ['m1'], minutesAfterStart(2), 'user-2');
        await record(event(), ['m1'], minutesAfterStart(3), 'user-2');
        await record(event(), ['m1'], minutesAfterStart(4), userId, otherTenant);
        expect((await store.get(tenantId, userId, ['m1'])).get('m1')).toEqual({
          memoryId: 'm1',
          hits: 1,
          lastAccessAt: minutesAfterStart(1),
        });
        expect((await store.get(tenantId, 'user-2', ['m1'])).get('m1')?.hits).toBe(2);
        expect((await store.get(otherTenant, userId, ['m1'])).get('m1')?.lastAccessAt).toBe(minutesAfterStart(4));
        expect(await store.get(tenantId, 'user-3', ['m1'])).toEqual(new Map());
      },
      testTimeoutMs,
    );

    it(
      'deleteUser removes that user’s statistics only',
      async () => {
        await record(event(), ['m1'], minutesAfterStart(1));
        await record(event(), ['m1'], minutesAfterStart(1), 'user-2');
        await store.deleteUser(tenantId, userId);
        await settle();
        expect(await store.get(tenantId, userId, ['m1'])).toEqual(new Map());
        expect((await store.get(tenantId, 'user-2', ['m1'])).get('m1')?.hits).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'truncate drops every statistic of every tenant',
      async () => {
        const otherTenant = uniqueName('tenant');
        await record(event(), ['m1'], minutesAfterStart(1));
        await record(event(), ['m1'], minutesAfterStart(1), 'user-9', otherTenant);
        await store.truncate();
        await settle();
        expect(await store.get(tenantId, userId, ['m1'])).toEqual(new Map());
        expect(await store.get(otherTenant, 'user-9', ['m1'])).toEqual(new Map());
      },
      testTimeoutMs,
    );
  });
}
