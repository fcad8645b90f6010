import {
  type BatchContext,
  type BatchHandler,
  type ConsumedMessage,
  type ConsumerSpec,
  type EventLog,
  lag,
  type LogPosition,
  reached,
  type Subscription,
} from '@engram/ports';
import { eventually, sleep, uniqueName } from './fixtures';

export interface EventLogSubject {
  readonly log: EventLog;
  /** Maps a logical topic name to the backend's (deployment prefix, naming rules). */
  topic(name: string): string;
}

export interface EventLogContractOptions {
  teardown?: (subject: EventLogSubject) => Promise<void>;
  /** How long to wait for a delivery or a commit (a Kafka group needs seconds to join). Default 10 s. */
  timeoutMs?: number;
  /** Jest timeout of each test. Default 30 s. */
  testTimeoutMs?: number;
  /** The adapter refuses a second running consumer of the same topic and group (the embedded log does). */
  rejectsSecondConsumerInGroup?: boolean;
  /** Writes `raw` as a message's stored value, bypassing JSON serialisation: enables the unparseable-value test. */
  appendRaw?: (subject: EventLogSubject, topic: string, key: string, raw: string) => Promise<void>;
}

interface Collector {
  readonly batches: ConsumedMessage[][];
  readonly messages: ConsumedMessage[];
  readonly subscription: Subscription;
}

/** Values the suite appends: which key, and the sequence number within that key. */
interface Seq {
  readonly k: string;
  readonly n: number;
}

const seqOf = (message: ConsumedMessage) => (message.value as Seq).n;

/**
 * The event-log contract: every adapter (embedded SQLite, Kafka) must pass it
 * unchanged. Positions are compared with `lag`/`reached`, never by assuming a
 * partition, and every test uses its own topic and group.
 */
export function testEventLog(factory: () => Promise<EventLogSubject>, options: EventLogContractOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const testTimeoutMs = options.testTimeoutMs ?? 30_000;

  describe('EventLog contract', () => {
    let subject: EventLogSubject;
    let log: EventLog;
    const open: Subscription[] = [];

    beforeAll(async () => {
      subject = await factory();
      log = subject.log;
    });

    afterEach(async () => {
      // A failed test must not leave a consumer running into the next one.
      await Promise.all(open.splice(0).map((s) => s.stop().catch(() => undefined)));
    });

    afterAll(async () => {
      if (subject) await options.teardown?.(subject);
    });

    async function freshTopic(): Promise<string> {
      const topic = subject.topic(uniqueName('contract.topic'));
      await log.ensureTopics([topic]);
      return topic;
    }

    async function appendSeq(topic: string, key: string, from: number, count: number): Promise<LogPosition> {
      const messages = Array.from({ length: count }, (_, i) => ({ key, value: { k: key, n: from + i } satisfies Seq }));
      return log.append(topic, messages);
    }

    async function subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
      const subscription = await log.subscribe(spec, handler);
      open.push(subscription);
      return {
        stop: async () => {
          open.splice(open.indexOf(subscription), 1);
          await subscription.stop();
        },
      };
    }

    async function collect(spec: ConsumerSpec, before?: (batch: readonly ConsumedMessage[]) => Promise<void>): Promise<Collector> {
      const batches: ConsumedMessage[][] = [];
      const messages: ConsumedMessage[] = [];
      const subscription = await subscribe(spec, async (batch) => {
        await before?.(batch);
        batches.push([...batch]);
        messages.push(...batch);
      });
      return { batches, messages, subscription };
    }

    const waitFor = (probe: () => boolean | Promise<boolean>, what: string) => eventually(probe, what, timeoutMs);

    async function waitCommitted(topic: string, group: string, target?: LogPosition): Promise<void> {
      const end = target ?? (await log.endPosition(topic));
      await waitFor(async () => reached(await log.committedPosition(topic, group), end), `group ${group} to commit`);
    }

    it(
      'reports positions: append returns the end, a new group lags by everything appended',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(0);

        const afterFirst = await appendSeq(topic, 'k', 0, 5);
        expect(reached(await log.endPosition(topic), afterFirst)).toBe(true);
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(5);

        const afterSecond = await appendSeq(topic, 'k', 5, 3);
        expect(reached(afterSecond, afterFirst)).toBe(true);
        expect(lag(afterSecond, afterFirst)).toBe(3);
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(8);
      },
      testTimeoutMs,
    );

    it(
      'delivers every message to a new group from the beginning, in order per key, in batches of at most maxBatchSize',
      async () => {
        const topic = await freshTopic();
        const keys = ['tenant-a:u1', 'tenant-a:u2', 'tenant-b:u1'];
        const messages = Array.from({ length: 60 }, (_, i) => {
          const key = keys[i % keys.length];
          return { key, value: { k: key, n: Math.floor(i / keys.length) } satisfies Seq };
        });
        await log.append(topic, messages);

        const c = await collect({ topic, group: uniqueName('group'), maxBatchSize: 7 });
        await waitFor(() => c.messages.length >= 60, '60 messages');
        await c.subscription.stop();

        expect(c.messages).toHaveLength(60);
        expect(c.batches.every((batch) => batch.length >= 1 && batch.length <= 7)).toBe(true);
        expect(c.batches.some((batch) => batch.length > 1)).toBe(true);
        for (const key of keys) {
          const ofKey = c.messages.filter((m) => m.key === key);
          expect(ofKey.map(seqOf)).toEqual(Array.from({ length: 20 }, (_, n) => n));
          expect(new Set(ofKey.map((m) => m.partition)).size).toBe(1);
        }
        for (const m of c.messages) {
          expect(m.topic).toBe(topic);
          expect(JSON.parse(m.raw)).toEqual(m.value);
          expect((m.value as Seq).k).toBe(m.key);
          expect(typeof m.timestamp).toBe('number');
        }
        // Offsets grow within each partition.
        const byPartition = new Map<number, number[]>();
        for (const m of c.messages) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m.offset]);
        for (const offsets of byPartition.values()) {
          expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
          expect(new Set(offsets).size).toBe(offsets.length);
        }
      },
      testTimeoutMs,
    );

    it(
      'commits a batch only after its handler resolved',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 20);
        const violations: string[] = [];
        const c = await collect({ topic, group, maxBatchSize: 5 }, async (batch) => {
          await sleep(5);
          const committed = await log.committedPosition(topic, group);
          for (const m of batch) {
            if ((committed[m.partition] ?? 0) > m.offset) violations.push(`offset ${m.offset} committed before handled`);
          }
        });
        await waitFor(() => c.messages.length >= 20, '20 messages');
        await waitCommitted(topic, group);
        await c.subscription.stop();
        expect(violations).toEqual([]);
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(0);
      },
      testTimeoutMs,
    );

    it(
      'redelivers a batch whose handler threw and skips nothing (at-least-once)',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 10);
        let failures = 0;
        const handled: number[] = [];
        const seen: number[] = [];
        const notCommittedWhileFailing: boolean[] = [];
        const subscription = await subscribe({ topic, group, maxBatchSize: 4 }, async (batch) => {
          seen.push(...batch.map(seqOf));
          const poisoned = batch.find((m) => seqOf(m) === 5);
          if (poisoned) {
            const committed = await log.committedPosition(topic, group);
            notCommittedWhileFailing.push((committed[poisoned.partition] ?? 0) <= poisoned.offset);
            if (failures < 2) {
              failures++;
              throw new Error('transient failure (expected by the test)');
            }
          }
          handled.push(...batch.map(seqOf));
        });
        await waitFor(() => handled.includes(9), 'the last message to be handled');
        await waitCommitted(topic, group);
        await subscription.stop();

        expect(failures).toBe(2);
        expect(seen.filter((n) => n === 5).length).toBeGreaterThanOrEqual(3);
        expect(notCommittedWhileFailing.every(Boolean)).toBe(true);
        // What succeeded is the whole sequence, in order, with no gap.
        expect(handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      },
      testTimeoutMs,
    );

    it(
      'stop() lets the batch in flight finish, commits it, and delivers nothing after',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 30);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let entered = false;
        let contextSeen: BatchContext | undefined;
        const handled: number[] = [];
        const subscription = await subscribe({ topic, group, maxBatchSize: 10 }, async (batch, context) => {
          if (!entered) {
            entered = true;
            contextSeen = context;
            expect(context.isRunning()).toBe(true);
            await context.heartbeat();
            await gate;
          }
          handled.push(...batch.map(seqOf));
        });
        await waitFor(() => entered, 'the first batch');

        let stopped = false;
        const stopping = subscription.stop().then(() => (stopped = true));
        await sleep(50);
        expect(stopped).toBe(false);
        expect(contextSeen!.isRunning()).toBe(false);
        release();
        await stopping;

        expect(handled.length).toBeGreaterThan(0);
        expect(handled).toEqual(Array.from({ length: handled.length }, (_, n) => n));
        const committed = await log.committedPosition(topic, group);
        expect(lag(await log.endPosition(topic), committed)).toBe(30 - handled.length);
        const countAtStop = handled.length;
        await sleep(100);
        expect(handled.length).toBe(countAtStop);
      },
      testTimeoutMs,
    );

    it(
      'a new subscription of the group resumes after the committed position and sees new appends',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 5);
        const first = await collect({ topic, group });
        await waitFor(() => first.messages.length >= 5, 'the first 5 messages');
        await waitCommitted(topic, group);
        await first.subscription.stop();

        const second = await collect({ topic, group });
        await sleep(50);
        await appendSeq(topic, 'k', 5, 5);
        await waitFor(() => second.messages.length >= 5, 'the next 5 messages');
        await waitCommitted(topic, group);
        await second.subscription.stop();

        expect(first.messages.map(seqOf)).toEqual([0, 1, 2, 3, 4]);
        expect(second.messages.map(seqOf)).toEqual([5, 6, 7, 8, 9]);
      },
      testTimeoutMs,
    );

    it(
      'keeps groups and topics independent',
      async () => {
        const topic = await freshTopic();
        const other = await freshTopic();
        await appendSeq(topic, 'k', 0, 5);
        await appendSeq(other, 'k', 100, 3);
        const a = await collect({ topic, group: uniqueName('group-a') });
        const b = await collect({ topic, group: uniqueName('group-b') });
        await waitFor(() => a.messages.length >= 5 && b.messages.length >= 5, 'both groups');
        await sleep(50);
        await a.subscription.stop();
        await b.subscription.stop();
        expect(a.messages.map(seqOf)).toEqual([0, 1, 2, 3, 4]);
        expect(b.messages.map(seqOf)).toEqual([0, 1, 2, 3, 4]);
      },
      testTimeoutMs,
    );

    it(
      'resetGroup to the beginning replays everything',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 5);
        const first = await collect({ topic, group });
        await waitFor(() => first.messages.length >= 5, '5 messages');
        await waitCommitted(topic, group);
        await first.subscription.stop();

        await log.resetGroup(topic, group, { to: 'beginning' });
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(5);

        const again = await collect({ topic, group });
        await waitFor(() => again.messages.length >= 5, '5 replayed messages');
        await again.subscription.stop();
        expect(again.messages.map(seqOf)).toEqual([0, 1, 2, 3, 4]);
      },
      testTimeoutMs,
    );

    it(
      'resetGroup to a timestamp starts at the first message at or after it',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 3);
        await sleep(60);
        const t = Date.now();
        await sleep(60);
        await appendSeq(topic, 'k', 3, 3);

        const first = await collect({ topic, group });
        await waitFor(() => first.messages.length >= 6, '6 messages');
        await waitCommitted(topic, group);
        await first.subscription.stop();

        await log.resetGroup(topic, group, { to: 'timestamp', timestamp: t });
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(3);
        const again = await collect({ topic, group });
        await waitFor(() => again.messages.length >= 3, '3 messages after the timestamp');
        await again.subscription.stop();
        expect(again.messages.map(seqOf)).toEqual([3, 4, 5]);
        expect(again.messages.every((m) => m.timestamp >= t)).toBe(true);

        // A timestamp after the last message leaves the group at the end.
        await log.resetGroup(topic, group, { to: 'timestamp', timestamp: Date.now() + 3_600_000 });
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(0);
      },
      testTimeoutMs,
    );

    it(
      'appendStored copies messages as stored: bytes (JSON or not), key, partition and timestamp, in order',
      async () => {
        const source = await freshTopic();
        const copy = await freshTopic();
        const keys = ['tenant-a:u1', 'tenant-a:u2', 'tenant-b:u1', 'tenant-b:u2'];
        await log.append(
          source,
          Array.from({ length: 24 }, (_, i) => ({ key: keys[i % keys.length], value: { k: keys[i % keys.length], n: i } })),
        );
        const read = await collect({ topic: source, group: uniqueName('group') });
        await waitFor(() => read.messages.length >= 24, '24 messages');
        await read.subscription.stop();
        // A value that is not JSON, on a partition the source uses, with a timestamp of the past.
        const partition = read.messages[0].partition;
        const stored = [
          ...read.messages.map((m) => ({ key: m.key, raw: m.raw, partition: m.partition, timestamp: m.timestamp })),
          { key: read.messages[0].key, raw: '{not json', partition, timestamp: 1_700_000_000_000 },
        ];
        const end = await log.appendStored(copy, stored);
        expect(lag(end, {})).toBe(25);

        const copied = await collect({ topic: copy, group: uniqueName('group') });
        await waitFor(() => copied.messages.length >= 25, '25 copied messages');
        await copied.subscription.stop();
        const byPartition = (messages: readonly { partition: number }[]) => [...new Set(messages.map((m) => m.partition))].sort();
        expect(byPartition(copied.messages)).toEqual(byPartition(stored));
        for (const p of byPartition(stored)) {
          const want = stored.filter((m) => m.partition === p);
          const got = copied.messages.filter((m) => m.partition === p);
          expect(got.map((m) => ({ key: m.key, raw: m.raw, timestamp: m.timestamp }))).toEqual(
            want.map(({ key, raw, timestamp }) => ({ key, raw, timestamp })),
          );
          expect(got.map((m) => m.offset)).toEqual(want.map((_, i) => i)); // a new topic: dense from 0
        }
        expect(copied.messages.find((m) => m.raw === '{not json')?.value).toBeUndefined();
      },
      testTimeoutMs,
    );

    it(
      'resetGroup to a position moves the group there, and refuses an offset the topic does not hold',
      async () => {
        const topic = await freshTopic();
        const group = uniqueName('group');
        await appendSeq(topic, 'k', 0, 5);
        const probe = await collect({ topic, group: uniqueName('group') });
        await waitFor(() => probe.messages.length >= 5, '5 messages');
        await probe.subscription.stop();
        const partition = probe.messages[0].partition;

        await log.resetGroup(topic, group, { to: 'position', position: { [partition]: 2 } });
        expect((await log.committedPosition(topic, group))[partition]).toBe(2);
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, group))).toBe(3);
        const rest = await collect({ topic, group });
        await waitFor(() => rest.messages.length >= 3, '3 messages');
        await rest.subscription.stop();
        expect(rest.messages.map(seqOf)).toEqual([2, 3, 4]);

        await expect(log.resetGroup(topic, group, { to: 'position', position: { [partition]: 6 } })).rejects.toThrow(/offset 6/);
      },
      testTimeoutMs,
    );

    it(
      'lists topics and the groups with a position on one (running or not), and deletes topics with their messages and groups',
      async () => {
        const doomed = await freshTopic();
        const kept = await freshTopic();
        await appendSeq(doomed, 'k', 0, 3);
        await appendSeq(kept, 'k', 0, 2);
        expect(await log.listTopics()).toEqual(expect.arrayContaining([doomed, kept]));

        const idle = uniqueName('group-idle');
        const busy = uniqueName('group-busy');
        const first = await collect({ topic: doomed, group: idle });
        await waitFor(() => first.messages.length >= 3, '3 messages');
        await waitCommitted(doomed, idle);
        await first.subscription.stop();
        const running = await collect({ topic: doomed, group: busy });
        await waitFor(() => running.messages.length >= 3, '3 messages');
        await waitCommitted(doomed, busy);

        const groups = await log.listGroups(doomed);
        expect(groups.filter((g) => g.group === idle || g.group === busy).sort((a, b) => a.group.localeCompare(b.group))).toEqual(
          [
            { group: busy, running: true },
            { group: idle, running: false },
          ].sort((a, b) => a.group.localeCompare(b.group)),
        );
        expect(await log.listGroups(doomed, idle)).toEqual([{ group: idle, running: false }]);
        expect(await log.listGroups(kept, idle)).toEqual([]);
        await running.subscription.stop();

        await log.deleteTopics([doomed, subject.topic(uniqueName('never.was'))]);
        const topics = await log.listTopics();
        expect(topics).toContain(kept);
        expect(topics).not.toContain(doomed);
        expect(lag(await log.endPosition(doomed), {})).toBe(0);
        expect(await log.listGroups(doomed)).toEqual([]);
        expect(lag(await log.endPosition(kept), {})).toBe(2);
      },
      testTimeoutMs,
    );

    it(
      'deletes a group: its position is forgotten (it reads from the beginning again), not while it runs, an unknown group ignored',
      async () => {
        const topic = await freshTopic();
        await appendSeq(topic, 'k', 0, 3);
        const reader = uniqueName('group-reader');
        const other = uniqueName('group-other');
        for (const group of [reader, other]) {
          const read = await collect({ topic, group });
          await waitFor(() => read.messages.length >= 3, '3 messages');
          await waitCommitted(topic, group);
          await read.subscription.stop();
        }
        const running = await collect({ topic, group: other });
        await expect(log.deleteGroup(topic, other)).rejects.toThrow(/running/);
        await running.subscription.stop();

        await log.deleteGroup(topic, reader);
        await eventually(
          async () => !(await log.listGroups(topic)).some((g) => g.group === reader),
          'the deleted group no longer listed',
          testTimeoutMs / 2,
        );
        expect((await log.listGroups(topic)).map((g) => g.group)).toContain(other);
        expect(lag(await log.endPosition(topic), await log.committedPosition(topic, reader))).toBe(3);
        await log.deleteGroup(topic, uniqueName('group-never-was'));
        await log.deleteGroup(topic, reader); // twice: already gone
      },
      testTimeoutMs,
    );

    if (options.appendRaw) {
      const appendRaw = options.appendRaw;
      it(
        'delivers a message whose value is not JSON with value undefined and its raw text, and goes on',
        async () => {
          const topic = await freshTopic();
          const group = uniqueName('group');
          await appendSeq(topic, 'k', 0, 1);
          await appendRaw(subject, topic, 'k', '{not json');
          await appendSeq(topic, 'k', 1, 1);
          const c = await collect({ topic, group });
          await waitFor(() => c.messages.length >= 3, '3 messages');
          await waitCommitted(topic, group);
          await c.subscription.stop();
          expect(c.messages[1].value).toBeUndefined();
          expect(c.messages[1].raw).toBe('{not json');
          expect(c.messages.map((m) => (m.value as Seq | undefined)?.n)).toEqual([0, undefined, 1]);
        },
        testTimeoutMs,
      );
    }

    if (options.rejectsSecondConsumerInGroup) {
      it(
        'refuses a second running consumer of the same topic and group, and allows one after stop',
        async () => {
          const topic = await freshTopic();
          const group = uniqueName('group');
          const first = await subscribe({ topic, group }, async () => undefined);
          await expect(log.subscribe({ topic, group }, async () => undefined)).rejects.toThrow(/already running/);
          await expect(log.resetGroup(topic, group, { to: 'beginning' })).rejects.toThrow();
          await first.stop();
          const second = await subscribe({ topic, group }, async () => undefined);
          await second.stop();
        },
        testTimeoutMs,
      );
    }
  });
}
