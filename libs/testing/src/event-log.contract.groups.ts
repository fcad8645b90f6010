// The event-log contract's cases on moving and deleting a consumer group: resetGroup to the beginning,
// a timestamp or a position, and deleteGroup.
import { type EventLog, lag } from '@engram/ports';
import { eventually, sleep, uniqueName } from './fixtures';
import { seqOf } from './event-log.contract.harness';
import type { EventLogHarness } from './event-log.contract.harness';

export function groupCases(h: EventLogHarness): void {
  const { freshTopic, appendSeq, collect, waitFor, waitCommitted, testTimeoutMs } = h;
  let log: EventLog;
  beforeAll(() => {
    // Opened by the suite's own beforeAll, which runs first.
    log = h.log;
  });

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
}
