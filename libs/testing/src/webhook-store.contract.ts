import type { NewWebhookDelivery, WebhookDelivery, WebhookStore, WebhookSubscription } from '@engram/ports';
import type { StoreContractOptions } from './fact-store.contract';
import { uniqueName } from './fixtures';

/** An instant the suite's clock starts from (ms); deliveries are due relative to it. */
const T0 = 1_800_000_000_000;

export function aWebhookSubscription(overrides: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return {
    id: uniqueName('webhook'),
    tenantId: uniqueName('tenant'),
    url: 'https://receiver.example/hooks',
    events: ['memory.added', 'memory.superseded', 'user.forgotten'],
    secret: 'whsec_0123456789abcdefghijklmnop',
    createdAt: T0,
    from: 'now',
    startPosition: { 0: 12 },
    status: 'active',
    ...overrides,
  };
}

export function aWebhookDelivery(
  subscription: WebhookSubscription,
  offset: number,
  overrides: Partial<NewWebhookDelivery> = {},
): NewWebhookDelivery {
  const eventId = overrides.eventId ?? `event-${offset}`;
  return {
    id: `${subscription.id}:${eventId}`,
    subscriptionId: subscription.id,
    tenantId: subscription.tenantId,
    userId: 'user-1',
    eventId,
    event: 'memory.added',
    memoryId: `memory-${offset}`,
    partition: 0,
    offset,
    recordedAt: '2026-11-30T09:00:00.000Z',
    stored: `{"eventId":"${eventId}","payload":{"sealed":"aes-256-gcm"}}`,
    createdAt: T0 + offset,
    ...overrides,
  };
}

const ids = (deliveries: readonly WebhookDelivery[]) => deliveries.map((d) => d.eventId);

/**
 * The webhook-store contract (SQLite, MongoDB): subscriptions per tenant, an idempotent outbox,
 * lanes per subscription and user (only a lane's head is due), leases, attempts, redaction of a
 * forgotten user, pruning.
 */
export function testWebhookStore(factory: () => Promise<WebhookStore>, options: StoreContractOptions<WebhookStore> = {}): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('WebhookStore contract', () => {
    let store: WebhookStore;

    beforeAll(async () => {
      store = await factory();
    });
    afterAll(async () => {
      if (store) await options.teardown?.(store);
    });

    /** Due deliveries of the given subscriptions only: the suite shares one store between tests. */
    const dueOf = async (subscriptions: readonly WebhookSubscription[], now: number) => {
      const wanted = new Set(subscriptions.map((s) => s.id));
      return (await store.dueDeliveries(now, 10_000)).filter((d) => wanted.has(d.subscriptionId));
    };
    const added = async (overrides: Partial<WebhookSubscription> = {}) => {
      const subscription = aWebhookSubscription(overrides);
      await store.addSubscription(subscription);
      return subscription;
    };
    const fail = (id: string, at: number, nextAttemptAt: number, error = 'HTTP 500') =>
      store.recordAttempt(id, { at, delivered: false, responseStatus: 500, error, nextAttemptAt });
    const deliver = (id: string, at: number) => store.recordAttempt(id, { at, delivered: true, responseStatus: 204 });

    it(
      "keeps each tenant's subscriptions to itself: listed, read and removed by their tenant only",
      async () => {
        const tenantId = uniqueName('tenant');
        const first = await added({ tenantId, createdAt: T0 });
        const second = await added({
          tenantId,
          createdAt: T0 + 1,
          events: ['memory.retracted'],
          from: 'beginning',
          startPosition: { 0: 3, 1: 7 },
        });
        const other = await added();

        expect(await store.subscriptions(tenantId)).toEqual([first, second]);
        expect(await store.subscription(tenantId, second.id)).toEqual(second);
        expect(await store.subscription(tenantId, other.id)).toBeUndefined();
        expect(await store.subscription(other.tenantId, first.id)).toBeUndefined();

        expect(await store.removeSubscription(other.tenantId, first.id)).toBe(false);
        expect(await store.subscription(tenantId, first.id)).toEqual(first);
        expect(await store.removeSubscription(tenantId, first.id)).toBe(true);
        expect(await store.removeSubscription(tenantId, first.id)).toBe(false);
        expect(await store.subscriptions(tenantId)).toEqual([second]);
        expect(await store.subscriptions(other.tenantId)).toEqual([other]);
      },
      testTimeoutMs,
    );

    it(
      'lists live subscriptions of every tenant, activates a backfilled one and disables with a reason',
      async () => {
        const active = await added();
        const backfilling = await added({ status: 'backfilling', from: 'beginning' });
        const live = async () => (await store.liveSubscriptions()).filter((s) => [active.id, backfilling.id].includes(s.id));

        expect(await live()).toEqual(expect.arrayContaining([active, backfilling]));
        await store.activate(backfilling.id);
        expect(await store.subscription(backfilling.tenantId, backfilling.id)).toEqual({ ...backfilling, status: 'active' });

        await store.disable(active.id, T0 + 500, 'delivery of event-1 failed 5 times in a row; last: HTTP 500');
        expect(await store.subscription(active.tenantId, active.id)).toEqual({
          ...active,
          status: 'disabled',
          disabledAt: T0 + 500,
          disabledReason: 'delivery of event-1 failed 5 times in a row; last: HTTP 500',
        });
        // Activation is for backfilled subscriptions only: a disabled one stays disabled.
        await store.activate(active.id);
        expect((await store.subscription(active.tenantId, active.id))?.status).toBe('disabled');
        expect((await live()).map((s) => s.id)).toEqual([backfilling.id]);
      },
      testTimeoutMs,
    );

    it(
      'enqueues each delivery once: enqueuing it again (a replayed batch) leaves it as it is',
      async () => {
        const subscription = await added();
        const delivery = aWebhookDelivery(subscription, 20);
        await store.enqueue([delivery]);
        expect(await store.claim(delivery.id, T0, T0 + 1000)).toBe(true);
        await fail(delivery.id, T0 + 10, T0 + 5000);

        await store.enqueue([delivery, { ...delivery, stored: 'changed' }]);
        const [stored] = await store.deliveries(subscription.tenantId, subscription.id, 10);
        expect(stored).toEqual({
          ...delivery,
          status: 'pending',
          attempts: 1,
          nextAttemptAt: T0 + 5000,
          leaseUntil: 0,
          lastAttemptAt: T0 + 10,
          responseStatus: 500,
          error: 'HTTP 500',
        });
        expect(await store.enqueue([])).toBeUndefined();
      },
      testTimeoutMs,
    );

    it(
      "makes only a lane's head due: a user's deliveries in log order, one user's failure holding back only that user",
      async () => {
        const subscription = await added();
        const alice = (offset: number) => aWebhookDelivery(subscription, offset, { userId: 'alice', eventId: `alice-${offset}` });
        const bob = (offset: number) => aWebhookDelivery(subscription, offset, { userId: 'bob', eventId: `bob-${offset}` });
        // Enqueued out of log order: the lane is ordered by position, not by arrival.
        await store.enqueue([alice(31), bob(32), alice(30)]);
        await store.enqueue([alice(33), bob(34)]);

        expect(ids(await dueOf([subscription], T0 + 100)).sort()).toEqual(['alice-30', 'bob-32']);

        // Alice's head fails: her lane waits for it; Bob's goes on.
        expect(await store.claim(`${subscription.id}:alice-30`, T0 + 100, T0 + 1100)).toBe(true);
        expect(ids(await dueOf([subscription], T0 + 100))).toEqual(['bob-32']);
        await fail(`${subscription.id}:alice-30`, T0 + 200, T0 + 10_000);
        expect(await store.claim(`${subscription.id}:bob-32`, T0 + 200, T0 + 1200)).toBe(true);
        await deliver(`${subscription.id}:bob-32`, T0 + 300);
        expect(ids(await dueOf([subscription], T0 + 400))).toEqual(['bob-34']);

        // Due again once its wait is over, still before the rest of the lane.
        expect(ids(await dueOf([subscription], T0 + 10_000)).sort()).toEqual(['alice-30', 'bob-34']);
        await deliver(`${subscription.id}:alice-30`, T0 + 10_001);
        expect(ids(await dueOf([subscription], T0 + 10_002)).sort()).toEqual(['alice-31', 'bob-34']);
      },
      testTimeoutMs,
    );

    it(
      'orders a lane by partition, then offset; sends nothing of a backfilling or disabled subscription',
      async () => {
        const subscription = await added();
        await store.enqueue([
          aWebhookDelivery(subscription, 5, { partition: 1, eventId: 'p1-5' }),
          aWebhookDelivery(subscription, 9, { partition: 0, eventId: 'p0-9' }),
        ]);
        expect(ids(await dueOf([subscription], T0 + 100))).toEqual(['p0-9']);

        const backfilling = await added({ status: 'backfilling', from: 'beginning' });
        const disabled = await added();
        await store.enqueue([aWebhookDelivery(backfilling, 1), aWebhookDelivery(disabled, 1)]);
        await store.disable(disabled.id, T0, 'gave up');
        expect(await dueOf([backfilling, disabled], T0 + 100)).toEqual([]);
        await store.activate(backfilling.id);
        expect(ids(await dueOf([backfilling, disabled], T0 + 100))).toEqual(['event-1']);
      },
      testTimeoutMs,
    );

    it(
      'returns the longest waiting first, at most `limit`',
      async () => {
        const subscription = await added();
        await store.enqueue([
          aWebhookDelivery(subscription, 1, { userId: 'u1', createdAt: T0 + 30 }),
          aWebhookDelivery(subscription, 2, { userId: 'u2', createdAt: T0 + 10 }),
          aWebhookDelivery(subscription, 3, { userId: 'u3', createdAt: T0 + 20 }),
        ]);
        expect(ids(await dueOf([subscription], T0 + 100))).toEqual(['event-2', 'event-3', 'event-1']);
        // A due delivery waits no longer than `now`: one created later is not due yet.
        expect(ids(await dueOf([subscription], T0 + 15))).toEqual(['event-2']);
        const limited = await store.dueDeliveries(T0 + 100, 1);
        expect(limited).toHaveLength(1);
      },
      testTimeoutMs,
    );

    it(
      'leases a delivery to one sender until the lease ends, and never a delivered one',
      async () => {
        const subscription = await added();
        const delivery = aWebhookDelivery(subscription, 1);
        await store.enqueue([delivery]);
        expect(await store.claim(delivery.id, T0 + 100, T0 + 1100)).toBe(true);
        expect(await store.claim(delivery.id, T0 + 500, T0 + 1500)).toBe(false);
        expect(await dueOf([subscription], T0 + 500)).toEqual([]);
        // A sender that died holds it only until its lease ends.
        expect(ids(await dueOf([subscription], T0 + 1100))).toEqual(['event-1']);
        expect(await store.claim(delivery.id, T0 + 1100, T0 + 2100)).toBe(true);
        await deliver(delivery.id, T0 + 1200);
        expect(await store.claim(delivery.id, T0 + 5000, T0 + 6000)).toBe(false);
        expect(await store.claim('no-such-delivery', T0, T0 + 1000)).toBe(false);
      },
      testTimeoutMs,
    );

    it(
      'records attempts: failures count up with the last status and error; delivery drops the content and the error',
      async () => {
        const subscription = await added();
        const delivery = aWebhookDelivery(subscription, 1);
        await store.enqueue([delivery]);
        await fail(delivery.id, T0 + 100, T0 + 1000, 'connection refused (ECONNREFUSED)');
        await store.recordAttempt(delivery.id, {
          at: T0 + 1000,
          delivered: false,
          error: 'timed out after 10000 ms',
          nextAttemptAt: T0 + 3000,
        });
        let [stored] = await store.deliveries(subscription.tenantId, subscription.id, 10);
        expect(stored).toMatchObject({
          status: 'pending',
          attempts: 2,
          nextAttemptAt: T0 + 3000,
          lastAttemptAt: T0 + 1000,
          error: 'timed out after 10000 ms',
        });
        expect(stored.responseStatus).toBeUndefined();

        await deliver(delivery.id, T0 + 3000);
        [stored] = await store.deliveries(subscription.tenantId, subscription.id, 10);
        expect(stored).toEqual({
          ...delivery,
          stored: null,
          status: 'delivered',
          attempts: 3,
          nextAttemptAt: T0 + 3000,
          leaseUntil: 0,
          lastAttemptAt: T0 + 3000,
          responseStatus: 204,
          deliveredAt: T0 + 3000,
        });
        // An attempt reported after another sender delivered it changes nothing.
        await fail(delivery.id, T0 + 4000, T0 + 9000);
        expect((await store.deliveries(subscription.tenantId, subscription.id, 10))[0]).toEqual(stored);
      },
      testTimeoutMs,
    );

    it(
      "redacts a forgotten user's pending deliveries before the forgetting, in every subscription of the tenant, and no one else's",
      async () => {
        const tenantId = uniqueName('tenant');
        const first = await added({ tenantId });
        const second = await added({ tenantId });
        const otherTenant = await added();
        await store.enqueue([
          aWebhookDelivery(first, 1, { userId: 'gone' }),
          aWebhookDelivery(first, 2, { userId: 'stays' }),
          aWebhookDelivery(second, 1, { userId: 'gone' }),
          // After the forgetting: the user came back (a new key), their new words are theirs to send.
          aWebhookDelivery(second, 9, { userId: 'gone' }),
          aWebhookDelivery(otherTenant, 1, { userId: 'gone' }),
        ]);
        await store.redactUser(tenantId, 'gone', { partition: 0, offset: 5 });

        const storedOf = async (subscription: WebhookSubscription) =>
          Object.fromEntries((await store.deliveries(subscription.tenantId, subscription.id, 10)).map((d) => [d.eventId, d.stored]));
        expect(await storedOf(first)).toEqual({ 'event-1': null, 'event-2': aWebhookDelivery(first, 2).stored });
        expect(await storedOf(second)).toEqual({ 'event-1': null, 'event-9': aWebhookDelivery(second, 9).stored });
        expect(await storedOf(otherTenant)).toEqual({ 'event-1': aWebhookDelivery(otherTenant, 1).stored });
        // Still due: a forgotten user's changes are delivered, as ids.
        expect(ids(await dueOf([second], T0 + 100))).toEqual(['event-1']);
      },
      testTimeoutMs,
    );

    it(
      'lists deliveries to their tenant only, the most recently created or attempted first',
      async () => {
        const subscription = await added();
        await store.enqueue([
          aWebhookDelivery(subscription, 1, { userId: 'u1', createdAt: T0 + 1 }),
          aWebhookDelivery(subscription, 2, { userId: 'u2', createdAt: T0 + 2 }),
          aWebhookDelivery(subscription, 3, { userId: 'u3', createdAt: T0 + 3 }),
        ]);
        await fail(`${subscription.id}:event-1`, T0 + 50, T0 + 100);
        expect(ids(await store.deliveries(subscription.tenantId, subscription.id, 10))).toEqual(['event-1', 'event-3', 'event-2']);
        expect(ids(await store.deliveries(subscription.tenantId, subscription.id, 2))).toEqual(['event-1', 'event-3']);
        expect(await store.deliveries(uniqueName('tenant'), subscription.id, 10)).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'removes a subscription with its deliveries',
      async () => {
        const subscription = await added();
        await store.enqueue([aWebhookDelivery(subscription, 1), aWebhookDelivery(subscription, 2)]);
        expect(await store.removeSubscription(subscription.tenantId, subscription.id)).toBe(true);
        expect(await store.deliveries(subscription.tenantId, subscription.id, 10)).toEqual([]);
        expect(await dueOf([subscription], T0 + 100)).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'prunes deliveries delivered before an instant, and those of removed subscriptions, keeping the rest',
      async () => {
        const subscription = await added();
        const removed = aWebhookSubscription();
        await store.enqueue([
          aWebhookDelivery(subscription, 1, { userId: 'u1' }),
          aWebhookDelivery(subscription, 2, { userId: 'u2' }),
          aWebhookDelivery(subscription, 3, { userId: 'u3' }),
          // Enqueued by a consumer that had not yet seen the subscription go.
          aWebhookDelivery(removed, 1),
        ]);
        await deliver(`${subscription.id}:event-1`, T0 + 100);
        await deliver(`${subscription.id}:event-2`, T0 + 900);

        expect(await store.prune(T0 + 500)).toBeGreaterThanOrEqual(2);
        expect(ids(await store.deliveries(subscription.tenantId, subscription.id, 10)).sort()).toEqual(['event-2', 'event-3']);
        expect(await store.deliveries(removed.tenantId, removed.id, 10)).toEqual([]);
        expect(await store.dueDeliveries(T0 + 10_000_000, 10_000)).not.toEqual(
          expect.arrayContaining([expect.objectContaining({ subscriptionId: removed.id })]),
        );
      },
      testTimeoutMs,
    );

    it(
      'is one store for every process: another instance over the same storage sees the same state',
      async () => {
        const subscription = await added();
        await store.enqueue([aWebhookDelivery(subscription, 1)]);
        const other = await factory();
        expect(await other.subscription(subscription.tenantId, subscription.id)).toEqual(subscription);
        expect(await other.claim(`${subscription.id}:event-1`, T0 + 100, T0 + 1100)).toBe(true);
        expect(await store.claim(`${subscription.id}:event-1`, T0 + 100, T0 + 1100)).toBe(false);
      },
      testTimeoutMs,
    );
  });
}
