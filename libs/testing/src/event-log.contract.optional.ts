// The event-log contract's cases an adapter opts into (EventLogContractOptions): an unparseable
// stored value, a second running consumer of a group refused.
import type { EventLog } from '@engram/ports';
import { uniqueName } from './fixtures';
import type { EventLogContractOptions, EventLogHarness, EventLogSubject, Seq } from './event-log.contract.harness';

export function optionalCases(h: EventLogHarness, options: EventLogContractOptions): void {
  const { freshTopic, appendSeq, subscribe, collect, waitFor, waitCommitted, testTimeoutMs } = h;
  let subject: EventLogSubject;
  let log: EventLog;
  beforeAll(() => {
    // Opened by the suite's own beforeAll, which runs first.
    subject = h.subject;
    log = h.log;
  });

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
}
