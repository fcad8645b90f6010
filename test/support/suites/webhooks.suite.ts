import type { INestApplication } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isEventShaped } from '@engram/services/crypto/sealing-event-log';
import { EventPublisher } from '@engram/services/pipeline/event-publisher';
import { consumeUpTo } from '@engram/services/transport/consume-up-to';
import { Topics, webhookEventOf, type WebhookEventName } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { uniqueName } from '@engram/testing';
import { EngramHarness, EngramMode, engramMode, rebuildOffline, startEngram, TestClock, turnsBody, useEngramMode } from '../engram-harness';
import { type ReceivedDelivery, WebhookReceiver } from '../webhook-receiver';

const ACME = 'key-acme';
const GLOBEX = 'key-globex';
const ADMIN = 'key-admin';
const ENV = {
  ENGRAM_API_KEYS: `${ACME}=acme,${GLOBEX}=globex`,
  ENGRAM_ADMIN_KEY: ADMIN,
  ENGRAM_WEBHOOK_RETRY_BASE_MS: '50',
  ENGRAM_WEBHOOK_RETRY_MAX_MS: '400',
  ENGRAM_WEBHOOK_TIMEOUT_MS: '3000',
};

/**
 * How large the receiver-down run is: the acceptance run is 1,000 changes with the receiver
 * away for 60 s (`ENGRAM_TEST_WEBHOOK_CHANGES=1000 ENGRAM_TEST_WEBHOOK_DOWN_MS=60000`); `npm test`
 * runs a smaller one.
 */
const CHANGES = Number(process.env.ENGRAM_TEST_WEBHOOK_CHANGES ?? 100);
const DOWN_MS = Number(process.env.ENGRAM_TEST_WEBHOOK_DOWN_MS ?? 3000);

/** A memory change as the log holds it: what some delivery must carry. */
interface LoggedChange {
  readonly eventId: string;
  readonly type: WebhookEventName;
  readonly tenantId: string;
  readonly userId: string;
}

interface Registered {
  readonly id: string;
  readonly secret: string;
  readonly status: string;
}

/**
 * Webhooks end to end on the real all-in-one server, with real receivers (node http servers on
 * 127.0.0.1): deliveries signed, at least once, in order per user, to their tenant only, through a
 * receiver that is away for a while; a forgotten user's without content; a dead endpoint disabled.
 * test/e2e runs it embedded, test/infra distributed.
 */
export function webhooksSuite(mode?: EngramMode): void {
  useEngramMode(mode);

  describe(`webhooks (${engramMode()})`, () => {
    let engram: EngramHarness;
    const receivers: WebhookReceiver[] = [];

    async function start(options: { env?: Record<string, string>; clock?: TestClock; dataDir?: string } = {}) {
      engram = await startEngram({ ...options, env: { ...ENV, ...options.env } });
    }

    async function receiver(): Promise<WebhookReceiver> {
      const started = await WebhookReceiver.start();
      receivers.push(started);
      return started;
    }

    afterEach(async () => {
      await engram?.destroy();
      await Promise.all(receivers.splice(0).map((r) => r.down()));
    });

    const as = (key: string) => ({ Authorization: `Bearer ${key}` });

    async function register(key: string, body: Record<string, unknown>): Promise<Registered> {
      const response = await engram.http().post('/v1/webhooks').set(as(key)).send(body).expect(201);
      return response.body as Registered;
    }

    async function say(key: string, userId: string, texts: readonly string[], session = 's1'): Promise<string> {
      const turns = texts.map((text) => ({ turnId: uniqueName('t'), text }));
      const response = await engram
        .http()
        .post('/v1/turns')
        .set(as(key))
        .send(turnsBody(userId, session, turns))
        .expect(202);
      return response.body.position as string;
    }

    /** Waits until recall sees everything up to `position`: the decisions are on memory.facts.v1. */
    async function settled(key: string, userId: string, position: string): Promise<void> {
      const response = await engram.http().post('/v1/recall').set(as(key)).send({ userId, query: 'x', after: position }).expect(200);
      expect(response.body.consistent).toBe(true);
    }

    /** Every memory change on memory.facts.v1 that webhooks carry, in log order (read with a throwaway group). */
    async function changesInLog(app: INestApplication = engram.app): Promise<LoggedChange[]> {
      const eventLog = app.get<EventLog>(EventLog);
      const topic = app.get(EventPublisher).topic(Topics.facts);
      const changes: LoggedChange[] = [];
      const group = uniqueName('webhook-test-reader');
      await consumeUpTo(eventLog, topic, group, await eventLog.endPosition(topic), async (messages) => {
        for (const message of messages) {
          const value = message.value;
          if (!isEventShaped(value)) continue;
          const type = webhookEventOf(value.type);
          if (type) changes.push({ eventId: value.eventId, type, tenantId: value.tenantId, userId: value.userId });
        }
      });
      await eventLog.deleteGroup(topic, group);
      return changes;
    }

    async function eventually(probe: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await probe())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    /** Each user's accepted deliveries, first arrivals only, in arrival order. */
    function firstArrivals(received: readonly ReceivedDelivery[]): Map<string, string[]> {
      const byUser = new Map<string, string[]>();
      for (const delivery of received) {
        const ids = byUser.get(delivery.payload.userId) ?? [];
        if (!ids.includes(delivery.payload.id)) ids.push(delivery.payload.id);
        byUser.set(delivery.payload.userId, ids);
      }
      return byUser;
    }

    function inLogOrder(changes: readonly LoggedChange[]): Map<string, string[]> {
      const byUser = new Map<string, string[]>();
      for (const change of changes) byUser.set(change.userId, [...(byUser.get(change.userId) ?? []), change.eventId]);
      return byUser;
    }

    /** Every change of `tenantId` delivered at least once, each user's in log order, nothing else; every signature verifies. */
    async function expectEverythingDelivered(to: WebhookReceiver, secret: string, tenantId: string, timeoutMs = 30_000) {
      const expected = (await changesInLog()).filter((c) => c.tenantId === tenantId);
      const wanted = new Set(expected.map((c) => c.eventId));
      const missing = () => {
        const accepted = new Set(to.accepted().map((d) => d.payload.id));
        return expected.filter((c) => !accepted.has(c.eventId));
      };
      await eventually(
        () => missing().length === 0,
        () => `${expected.length} deliveries to ${tenantId}'s receiver: ${missing().length} missing, ${to.received.length} received`,
        timeoutMs,
      );
      expect(firstArrivals(to.accepted())).toEqual(inLogOrder(expected));
      expect(to.received.filter((d) => !wanted.has(d.payload.id))).toEqual([]);
      expect(to.received.filter((d) => !WebhookReceiver.verifies(d, secret))).toEqual([]);
      return expected;
    }

    it('delivers every kind of memory change, signed, in order per user, to its own tenant only', async () => {
      const clock = new TestClock(new Date('2026-11-30T09:00:00Z'));
      await start({ clock, env: { ENGRAM_ARCHIVE_CONFIDENCE: '0.8' } });
      const acmeHooks = await receiver();
      const globexHooks = await receiver();
      const acme = await register(ACME, { url: acmeHooks.url, secret: 'acme-secret-0123456789-abcdef' });
      const globex = await register(GLOBEX, { url: globexHooks.url, events: ['memory.added'] });
      expect(acme).toMatchObject({ status: 'active', secret: 'acme-secret-0123456789-abcdef' });
      expect(globex.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

      // added, superseded; an ephemeral request (expires) and an unconfirmed preference (archived).
      await say(ACME, 'maya', ['set the standup to 9am']);
      await say(ACME, 'maya', ['no, make it 10', "what's the weather today?"]);
      await settled(ACME, 'sam', await say(ACME, 'sam', ['I prefer aisle seats on long flights', 'I like green tea']));
      await settled(GLOBEX, 'maya', await say(GLOBEX, 'maya', ['I prefer window seats']));
      // retracted, by the application.
      const memories = (await engram.http().get('/v1/users/sam/memories').set(as(ACME)).expect(200)).body.memories as {
        memoryId: string;
        content: string;
        kind: string;
      }[];
      const tea = memories.find((m) => m.kind === 'preference' && m.content.includes('green tea'))!;
      await engram.http().delete(`/v1/users/sam/memories/${tea.memoryId}`).set(as(ACME)).send({ reason: 'not any more' }).expect(200);
      // expired and archived, by the forgetting policy three months on.
      clock.advanceDays(91);
      const run = await engram.http().post('/v1/forgetting/run').set(as(ACME)).send({}).expect(200);
      expect(run.body).toMatchObject({ consistent: true });
      expect(run.body.expired).toBeGreaterThanOrEqual(1);
      expect(run.body.archived).toBeGreaterThanOrEqual(1);

      const delivered = await expectEverythingDelivered(acmeHooks, acme.secret, 'acme');
      expect(new Set(delivered.map((c) => c.type))).toEqual(
        new Set(['memory.added', 'memory.superseded', 'memory.retracted', 'memory.expired', 'memory.archived']),
      );
      const standup = acmeHooks.accepted().find((d) => d.payload.type === 'memory.superseded')!;
      expect(standup.payload.data.memory).toMatchObject({ attribute: 'standup', value: '10', history: [{ value: '9am' }] });
      expect(standup.payload.data.memory).not.toHaveProperty('appliedItemIds');
      expect(standup.headers).toMatchObject({
        'content-type': 'application/json',
        'engram-event-id': standup.payload.id,
        'engram-event-type': 'memory.superseded',
        'engram-webhook-id': acme.id,
      });
      const retracted = acmeHooks
        .accepted()
        .find((d) => d.payload.type === 'memory.retracted' && d.payload.data.memoryId === tea.memoryId)!;
      expect(retracted.payload.data.memory).toMatchObject({ memoryId: tea.memoryId, status: 'retracted', statusReason: 'not any more' });

      // globex asked for memory.added only, and gets its own users' only.
      const globexAdded = (await changesInLog()).filter((c) => c.tenantId === 'globex' && c.type === 'memory.added');
      await eventually(
        () => globexAdded.every((c) => globexHooks.accepted().some((d) => d.payload.id === c.eventId)),
        "globex's deliveries",
      );
      expect(
        globexHooks.received.every((d) => d.payload.type === 'memory.added' && globexAdded.some((c) => c.eventId === d.payload.id)),
      ).toBe(true);
      expect(globexHooks.received.filter((d) => !WebhookReceiver.verifies(d, globex.secret))).toEqual([]);
      expect(JSON.stringify(acmeHooks.received.map((d) => d.payload))).not.toContain('window seats');

      const status = await engram.http().get(`/v1/webhooks/${acme.id}/deliveries?limit=500`).set(as(ACME)).expect(200);
      expect(status.body.deliveries).toHaveLength(delivered.length);
      expect(status.body.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 204, error: null });
    });

    it(
      `delivers ${CHANGES} changes through a receiver away for ${DOWN_MS} ms: each at least once, in order per user, none of another tenant`,
      async () => {
        // Retries every 400 ms at most here: enough failures allowed that the outage does not disable the webhook.
        await start({ env: { ENGRAM_WEBHOOK_MAX_FAILURES: '1000' } });
        const hooks = await receiver();
        const otherHooks = await receiver();
        const acme = await register(ACME, { url: hooks.url });
        await register(GLOBEX, { url: otherHooks.url });
        const users = ['u1', 'u2', 'u3', 'u4', 'u5'];
        const subjects = ['green tea', 'VS Code', 'window seats', 'Berlin', 'jazz', 'Python', 'sushi', 'hiking', 'chess', 'Rust'];
        // Each turn is at least two changes: its episode and what it says.
        const requests = Math.ceil(CHANGES / 2 / 5);
        let position = '';
        let downSince = 0;
        for (let i = 0; i < requests; i++) {
          if (i === Math.floor(requests / 3)) {
            await hooks.down();
            downSince = Date.now();
          }
          if (i === Math.floor((2 * requests) / 3)) {
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, DOWN_MS - (Date.now() - downSince))));
            await hooks.up();
          }
          const user = users[i % users.length];
          const texts = Array.from({ length: 5 }, (_, j) => `I like ${subjects[(i * 5 + j) % subjects.length]} number ${i * 5 + j}`);
          position = await say(ACME, user, texts, `s${i}`);
          if (i % 4 === 0) await say(GLOBEX, 'g1', [`I prefer ${subjects[i % subjects.length]}`]);
        }
        await settled(ACME, 'u1', position);
        const delivered = await expectEverythingDelivered(hooks, acme.secret, 'acme', 60_000 + CHANGES * 100);
        expect(delivered.length).toBeGreaterThanOrEqual(CHANGES);
        expect(new Set(delivered.map((c) => c.userId))).toEqual(new Set(users));
        // The receiver really was away: attempts failed, and were made again.
        const metrics = (await engram.http().get('/metrics').set(as(ADMIN)).expect(200)).text;
        expect(Number(/^engram_webhook_attempts_total\{outcome="failed"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
        const deliveries = (await engram.http().get(`/v1/webhooks/${acme.id}/deliveries?limit=500`).set(as(ACME)).expect(200)).body
          .deliveries as { status: string }[];
        expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
        expect(hooks.received.some((d) => d.payload.userId === 'g1')).toBe(false);
      },
      120_000 + DOWN_MS + CHANGES * 300,
    );

    it("sends a forgotten user's changes without content: ids and type only, then user.forgotten", async () => {
      await start();
      const hooks = await receiver();
      const acme = await register(ACME, { url: hooks.url });
      // Away while the changes are queued, so they are sent after the user is forgotten.
      await hooks.down();
      await settled(ACME, 'dora', await say(ACME, 'dora', ['My favourite colour is vermilion', 'I live in Reykjavik']));
      const queued = (await changesInLog()).filter((c) => c.userId === 'dora');
      expect(queued.length).toBeGreaterThanOrEqual(2);
      // Queued (their content still sealed with dora's key) and tried while the receiver is away.
      await eventually(async () => {
        const listed = await engram.http().get(`/v1/webhooks/${acme.id}/deliveries`).set(as(ACME)).expect(200);
        const deliveries = listed.body.deliveries as { eventId: string; attempts: number }[];
        return queued.every((c) => deliveries.some((d) => d.eventId === c.eventId)) && deliveries.some((d) => d.attempts > 0);
      }, 'the deliveries to be queued');
      await engram.http().delete('/v1/users/dora').set(as(ACME)).expect(200);
      await hooks.up();

      const delivered = await expectEverythingDelivered(hooks, acme.secret, 'acme');
      expect(delivered.at(-1)).toMatchObject({ type: 'user.forgotten', userId: 'dora' });
      const bodies = hooks.accepted().map((d) => d.body);
      for (const word of ['vermilion', 'Reykjavik', 'colour']) expect(bodies.join('\n')).not.toContain(word);
      for (const { payload } of hooks.accepted()) {
        if (payload.type === 'user.forgotten') expect(payload.data).toEqual({});
        else expect(payload).toMatchObject({ redacted: true, data: { memoryId: expect.any(String) } });
        expect(payload.data).not.toHaveProperty('memory');
      }

      // Read from the log after the forgetting (a webhook backfilled from the beginning): the events
      // no longer open, and go out as their envelope's ids.
      const laterHooks = await receiver();
      const later = await register(ACME, { url: laterHooks.url, from: 'beginning' });
      await expectEverythingDelivered(laterHooks, later.secret, 'acme');
      for (const { payload, body } of laterHooks.accepted()) {
        expect(body).not.toMatch(/vermilion|Reykjavik|colour/);
        if (payload.type !== 'user.forgotten') expect(payload).toMatchObject({ userId: 'dora', redacted: true, data: {} });
      }
    });

    it('holds back a failing user until the receiver takes it, not the others; disables a dead subscription, saying why', async () => {
      await start({ env: { ENGRAM_WEBHOOK_MAX_FAILURES: '4' } });
      const hooks = await receiver();
      const acme = await register(ACME, { url: hooks.url });
      let refuse = true;
      hooks.answer = (payload) => (payload.userId === 'stuck' && refuse ? 503 : 204);
      await settled(ACME, 'stuck', await say(ACME, 'stuck', ['I like jazz', 'I prefer Python']));
      await settled(ACME, 'free', await say(ACME, 'free', ['I like chess', 'I prefer Rust']));
      const stuck = (await changesInLog()).filter((c) => c.userId === 'stuck');
      const free = (await changesInLog()).filter((c) => c.userId === 'free');
      await eventually(() => free.every((c) => hooks.accepted().some((d) => d.payload.id === c.eventId)), "the other user's deliveries");
      await eventually(() => hooks.received.filter((d) => d.payload.userId === 'stuck').length >= 2, 'retries');
      // Only the head of the failing user's lane is tried, again and again.
      expect(new Set(hooks.received.filter((d) => d.payload.userId === 'stuck').map((d) => d.payload.id))).toEqual(
        new Set([stuck[0].eventId]),
      );
      refuse = false;
      await expectEverythingDelivered(hooks, acme.secret, 'acme');

      // An endpoint that keeps failing: disabled after ENGRAM_WEBHOOK_MAX_FAILURES failures in a row.
      const deadHooks = await receiver();
      deadHooks.answer = () => 500;
      const dead = await register(ACME, { url: deadHooks.url });
      await settled(ACME, 'free', await say(ACME, 'free', ['I like hiking']));
      await eventually(async () => {
        const listed = (await engram.http().get('/v1/webhooks').set(as(ACME)).expect(200)).body.webhooks as {
          id: string;
          status: string;
        }[];
        return listed.find((w) => w.id === dead.id)?.status === 'disabled';
      }, 'the dead subscription to be disabled');
      const listed = (await engram.http().get('/v1/webhooks').set(as(ACME)).expect(200)).body.webhooks;
      const disabled = listed.find((w: { id: string }) => w.id === dead.id);
      expect(disabled).toMatchObject({ status: 'disabled', disabledAt: expect.any(String) });
      expect(disabled.disabledReason).toMatch(/^delivery of event \S+ failed 4 times in a row; last: HTTP 500$/);
      expect(disabled).not.toHaveProperty('secret');
      expect(listed.find((w: { id: string }) => w.id === acme.id)).toMatchObject({ status: 'active', disabledReason: null });
      const [head] = (await engram.http().get(`/v1/webhooks/${dead.id}/deliveries`).set(as(ACME)).expect(200)).body.deliveries;
      expect(head).toMatchObject({ status: 'pending', attempts: 4, responseStatus: 500, error: 'HTTP 500' });
      expect(deadHooks.received).toHaveLength(4);
      // Nothing more is sent to it.
      await settled(ACME, 'free', await say(ACME, 'free', ['I like sushi']));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(deadHooks.received).toHaveLength(4);

      const metrics = await engram.http().get('/metrics').set(as(ADMIN)).expect(200);
      expect(metrics.text).toMatch(/^engram_webhook_subscriptions_disabled_total 1$/m);
      expect(metrics.text).toMatch(/^engram_webhook_attempts_total\{outcome="failed"\} ([5-9]|\d\d+)$/m);
      expect(metrics.text).toMatch(/^engram_webhook_attempts_total\{outcome="delivered"\} \d+$/m);
      await eventually(async () => {
        const scraped = (await engram.http().get('/metrics').set(as(ADMIN)).expect(200)).text;
        return /^engram_webhook_outbox_lag 0$/m.test(scraped);
      }, 'the outbox to have read the whole topic');
    });

    it('starts a new subscription at the log’s end, backfills one from the beginning first, and resends nothing after a rebuild', async () => {
      await start();
      await settled(ACME, 'ann', await say(ACME, 'ann', ['I like green tea', 'I prefer window seats']));
      const history = await changesInLog();
      const nowHooks = await receiver();
      const pastHooks = await receiver();
      const fromNow = await register(ACME, { url: nowHooks.url });
      const fromStart = await register(ACME, { url: pastHooks.url, from: 'beginning' });
      expect(fromStart.status).toBe('backfilling');
      await settled(ACME, 'ann', await say(ACME, 'ann', ['I like jazz']));

      const all = await expectEverythingDelivered(pastHooks, fromStart.secret, 'acme');
      expect(all.slice(0, history.length)).toEqual(history);
      const fresh = all.slice(history.length);
      await eventually(() => fresh.every((c) => nowHooks.accepted().some((d) => d.payload.id === c.eventId)), 'the new subscription');
      expect(firstArrivals(nowHooks.accepted())).toEqual(inLogOrder(fresh));
      const listed = (await engram.http().get('/v1/webhooks').set(as(ACME)).expect(200)).body.webhooks;
      expect(listed.map((w: { id: string; status: string; from: string }) => [w.id, w.status, w.from])).toEqual([
        [fromNow.id, 'active', 'now'],
        [fromStart.id, 'active', 'beginning'],
      ]);

      // A rebuild replays the log into the projections; the webhooks' group is not theirs.
      const dataDir = engram.dataDir;
      const before = pastHooks.received.length;
      await engram.stop();
      await rebuildOffline(dataDir);
      await start({ dataDir });
      await settled(ACME, 'ann', await say(ACME, 'ann', ['I like chess']));
      const after = (await changesInLog()).filter((c) => !all.some((a) => a.eventId === c.eventId));
      expect(after.length).toBeGreaterThanOrEqual(1);
      await eventually(
        () => after.every((c) => pastHooks.accepted().some((d) => d.payload.id === c.eventId)),
        'the change after the rebuild',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pastHooks.received.slice(before).map((d) => d.payload.id)).toEqual(after.map((c) => c.eventId));
    });

    describe('refuses bad input with a 4xx naming the field', () => {
      beforeEach(async () => {
        await start({ env: { PORT: '3999' } });
      });

      /** POST /v1/webhooks on the listening server, with the Host header given (fetch would not let it be set). */
      function postVia(port: number, host: string, body: object): Promise<{ status: number; body: unknown }> {
        return new Promise((resolve, reject) => {
          const payload = JSON.stringify(body);
          const request = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/v1/webhooks',
              headers: { ...as(ACME), host, 'content-type': 'application/json' },
            },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
            },
          );
          request.on('error', reject);
          request.end(payload);
        });
      }

      async function refused(body: Record<string, unknown>, field: string, key = ACME) {
        const response = await engram.http().post('/v1/webhooks').set(as(key)).send(body).expect(400);
        expect(response.body.fields).toEqual([field]);
        return response.body.message as string[];
      }

      it('refuses URLs that are not http(s), malformed, with credentials, or this server itself; takes loopback at another port', async () => {
        expect(await refused({ url: 'ftp://files.example.com/x' }, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({ url: 'file:///etc/passwd' }, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({ url: 'http://' }, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({ url: 'http://exa mple.com/' }, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({ url: 42 }, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({}, 'url')).toEqual(['url must be an absolute http or https URL']);
        expect(await refused({ url: 'https://me:pw@hooks.example.com/' }, 'url')).toEqual([
          'url must not carry credentials: deliveries are signed instead',
        ]);
        // The configured port, on loopback under any name.
        for (const url of ['http://127.0.0.1:3999/', 'http://localhost:3999/v1/turns', 'http://[::1]:3999/'])
          expect(await refused({ url }, 'url')).toEqual(['url must not point at this engram server itself']);
        const beside = await receiver();
        await register(ACME, { url: beside.url });
      });

      it('refuses the port the request came in on, on loopback and under the Host it named', async () => {
        const server = engram.app.getHttpServer();
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
        const port = (server.address() as AddressInfo).port;
        try {
          for (const url of [`http://127.0.0.1:${port}/hooks`, `http://localhost:${port}/`, `http://0.0.0.0:${port}/`]) {
            const response = await fetch(`http://127.0.0.1:${port}/v1/webhooks`, {
              method: 'POST',
              headers: { ...as(ACME), 'content-type': 'application/json' },
              body: JSON.stringify({ url }),
            });
            expect(response.status).toBe(400);
            expect(await response.json()).toMatchObject({ fields: ['url'], message: ['url must not point at this engram server itself'] });
          }
          // Called by a name (behind a proxy, say): that name at that port is this server too.
          const named = await postVia(port, 'engram.example:8443', { url: 'https://engram.example:8443/hooks' });
          expect(named).toMatchObject({
            status: 400,
            body: { fields: ['url'], message: ['url must not point at this engram server itself'] },
          });
          expect(await postVia(port, 'engram.example:8443', { url: 'https://hooks.example.com/engram' })).toMatchObject({ status: 201 });
        } finally {
          await new Promise<void>((resolve) => server.close(() => resolve()));
        }
      });

      it('refuses unknown event names, duplicates, an empty list, short or non-ASCII secrets, an unknown `from`', async () => {
        const url = 'https://hooks.example.com/engram';
        expect(await refused({ url, events: ['memory.deleted'] }, 'events')).toEqual([
          'events must each be one of: memory.added, memory.superseded, memory.retracted, memory.archived, memory.expired, user.forgotten',
        ]);
        await refused({ url, events: ['memory.added', 'memory.added'] }, 'events');
        await refused({ url, events: [] }, 'events');
        await refused({ url, events: 'memory.added' }, 'events');
        expect(await refused({ url, secret: 'too-short' }, 'secret')).toEqual(['secret must be at least 24 characters']);
        expect(await refused({ url, secret: 'a secret with spaces in it, long enough' }, 'secret')).toEqual([
          'secret must be printable ASCII characters without spaces',
        ]);
        await refused({ url, from: 'yesterday' }, 'from');
      });

      it("keeps each tenant's webhooks to itself, and answers 400/404 for malformed or unknown ids", async () => {
        const acme = await register(ACME, { url: 'https://hooks.example.com/acme' });
        await engram.http().get('/v1/webhooks').set(as(GLOBEX)).expect(200, { webhooks: [] });
        const listed = (await engram.http().get('/v1/webhooks').set(as(ACME)).expect(200)).body.webhooks;
        expect(listed).toEqual([
          {
            id: acme.id,
            url: 'https://hooks.example.com/acme',
            events: ['memory.added', 'memory.superseded', 'memory.retracted', 'memory.archived', 'memory.expired', 'user.forgotten'],
            status: 'active',
            from: 'now',
            createdAt: expect.any(String),
            disabledAt: null,
            disabledReason: null,
          },
        ]);
        for (const path of [`/v1/webhooks/${acme.id}/deliveries`, `/v1/webhooks/${acme.id}`]) {
          const method = path.endsWith('deliveries') ? 'get' : 'delete';
          const other = await engram.http()[method](path).set(as(GLOBEX)).expect(404);
          expect(other.body.fields).toEqual(['webhookId']);
        }
        const malformed = await engram.http().delete('/v1/webhooks/not-an-id').set(as(ACME)).expect(400);
        expect(malformed.body.fields).toEqual(['webhookId']);
        const limit = await engram.http().get(`/v1/webhooks/${acme.id}/deliveries?limit=0`).set(as(ACME)).expect(400);
        expect(limit.body.fields).toEqual(['limit']);
        await engram.http().get('/v1/webhooks').expect(401);

        await engram.http().delete(`/v1/webhooks/${acme.id}`).set(as(ACME)).expect(200, { deleted: true, id: acme.id });
        await engram.http().delete(`/v1/webhooks/${acme.id}`).set(as(ACME)).expect(404);
        await engram.http().get('/v1/webhooks').set(as(ACME)).expect(200, { webhooks: [] });
      });

      it('holds a tenant to ENGRAM_WEBHOOK_MAX_PER_TENANT webhooks', async () => {
        await engram.destroy();
        await start({ env: { ENGRAM_WEBHOOK_MAX_PER_TENANT: '2' } });
        await register(ACME, { url: 'https://hooks.example.com/1' });
        await register(ACME, { url: 'https://hooks.example.com/2' });
        const third = await engram.http().post('/v1/webhooks').set(as(ACME)).send({ url: 'https://hooks.example.com/3' }).expect(409);
        expect(third.body.message).toEqual(['a tenant holds at most 2 webhooks: delete one first']);
        await register(GLOBEX, { url: 'https://hooks.example.com/g' });
      });

      it('refuses hosts ENGRAM_WEBHOOK_ALLOWED_HOSTS does not list', async () => {
        await engram.destroy();
        await start({ env: { ENGRAM_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
        expect(await refused({ url: 'https://hooks.example.com/x' }, 'url')).toEqual([
          'url host hooks.example.com is not one this server sends webhooks to',
        ]);
        expect(await refused({ url: 'http://localhost:45678/x' }, 'url')).toEqual([
          'url host localhost is not one this server sends webhooks to',
        ]);
        await register(ACME, { url: 'http://127.0.0.1:45678/x' });
      });
    });
  });
}
