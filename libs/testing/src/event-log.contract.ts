// The event-log contract: one suite every EventLog adapter's spec runs unchanged (testEventLog),
// its cases grouped by what they check in the event-log.contract.*.ts files beside it.
import { type EventLogContractOptions, eventLogHarness, type EventLogSubject } from './event-log.contract.harness';
import { deliveryCases } from './event-log.contract.delivery';
import { groupCases } from './event-log.contract.groups';
import { optionalCases } from './event-log.contract.optional';
import { topicCases } from './event-log.contract.topics';

export type { EventLogContractOptions, EventLogSubject } from './event-log.contract.harness';

/**
 * The event-log contract: every adapter (embedded SQLite, Kafka) must pass it
 * unchanged. Positions are compared with `lag`/`reached`, never by assuming a
 * partition, and every test uses its own topic and group.
 */
export function testEventLog(factory: () => Promise<EventLogSubject>, options: EventLogContractOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const testTimeoutMs = options.testTimeoutMs ?? 30_000;

  describe('EventLog contract', () => {
    const h = eventLogHarness(timeoutMs, testTimeoutMs);

    beforeAll(async () => {
      h.subject = await factory();
      h.log = h.subject.log;
    });

    afterEach(async () => {
      // A failed test must not leave a consumer running into the next one.
      await Promise.all(h.open.splice(0).map((s) => s.stop().catch(() => undefined)));
    });

    afterAll(async () => {
      if (h.subject) await options.teardown?.(h.subject);
    });

    deliveryCases(h);
    groupCases(h);
    topicCases(h);
    optionalCases(h, options);
  });
}
