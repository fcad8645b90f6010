// The event-log contract's cases on topics as stored: appendStored copies, listTopics, listGroups, deleteTopics.
import { type EventLog, lag } from '@engram/ports';
import { uniqueName } from './fixtures';
import type { EventLogHarness, EventLogSubject } from './event-log.contract.harness';

export function topicCases(h: EventLogHarness): void {
  const { freshTopic, appendSeq, collect, waitFor, waitCommitted, testTimeoutMs } = h;
  let subject: EventLogSubject;
  let log: EventLog;
  beforeAll(() => {
    // Opened by the suite's own beforeAll, which runs first.
    subject = h.subject;
    log = h.log;
  });

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
}
