// The event-log contract's cases on positions and delivery: order per key, batch sizes, commit after
// the handler, redelivery after a failure, stop() finishing its batch, resuming, independent groups.
import { type BatchContext, type EventLog, lag, reached } from '@engram/ports';
import { sleep, uniqueName } from './fixtures';
import { type Seq, seqOf } from './event-log.contract.harness';
import type { EventLogHarness } from './event-log.contract.harness';

export function deliveryCases(h: EventLogHarness): void {
  const { freshTopic, appendSeq, subscribe, collect, waitFor, waitCommitted, testTimeoutMs } = h;
  let log: EventLog;
  beforeAll(() => {
    // Opened by the suite's own beforeAll, which runs first.
    log = h.log;
  });

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
    'a batch that fails only for its size goes through in smaller parts, in order, none skipped',
    async () => {
      const topic = await freshTopic();
      const group = uniqueName('group');
      await appendSeq(topic, 'k', 0, 10);
      const handled: number[] = [];
      let refused = 0;
      // As a store whose bulk write outlasts its timeout past two events would.
      const subscription = await subscribe({ topic, group, maxBatchSize: 8 }, async (batch) => {
        if (batch.length > 2) {
          refused++;
          throw new Error('too big to finish in time (expected by the test)');
        }
        handled.push(...batch.map(seqOf));
      });
      await waitFor(() => handled.includes(9), 'the last message to be handled');
      await waitCommitted(topic, group);
      await subscription.stop();

      expect(refused).toBeGreaterThan(0);
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
}
