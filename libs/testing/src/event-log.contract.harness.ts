// What the event-log contract's cases share: the subject under test (opened by the suite's
// beforeAll), fresh topics, sequence values, subscriptions stopped after each case, waits.
import type { BatchHandler, ConsumedMessage, ConsumerSpec, EventLog, LogPosition, Subscription } from '@engram/ports';
import { reached } from '@engram/ports';
import { eventually, uniqueName } from './fixtures';

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
export interface Seq {
  readonly k: string;
  readonly n: number;
}

export const seqOf = (message: ConsumedMessage) => (message.value as Seq).n;

export interface EventLogHarness {
  /** Set by the suite's beforeAll. */
  subject: EventLogSubject;
  log: EventLog;
  /** Subscriptions still running: the suite stops them after each case. */
  readonly open: Subscription[];
  readonly timeoutMs: number;
  readonly testTimeoutMs: number;
  freshTopic(): Promise<string>;
  appendSeq(topic: string, key: string, from: number, count: number): Promise<LogPosition>;
  subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription>;
  collect(spec: ConsumerSpec, before?: (batch: readonly ConsumedMessage[]) => Promise<void>): Promise<Collector>;
  waitFor(probe: () => boolean | Promise<boolean>, what: string): Promise<void>;
  waitCommitted(topic: string, group: string, target?: LogPosition): Promise<void>;
}

export function eventLogHarness(timeoutMs: number, testTimeoutMs: number): EventLogHarness {
  async function freshTopic(): Promise<string> {
    const topic = h.subject.topic(uniqueName('contract.topic'));
    await h.log.ensureTopics([topic]);
    return topic;
  }

  async function appendSeq(topic: string, key: string, from: number, count: number): Promise<LogPosition> {
    const messages = Array.from({ length: count }, (_, i) => ({ key, value: { k: key, n: from + i } satisfies Seq }));
    return h.log.append(topic, messages);
  }

  async function subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
    const subscription = await h.log.subscribe(spec, handler);
    h.open.push(subscription);
    return {
      stop: async () => {
        h.open.splice(h.open.indexOf(subscription), 1);
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
    const end = target ?? (await h.log.endPosition(topic));
    await waitFor(async () => reached(await h.log.committedPosition(topic, group), end), `group ${group} to commit`);
  }

  const h: EventLogHarness = {
    subject: undefined as unknown as EventLogSubject,
    log: undefined as unknown as EventLog,
    open: [] as Subscription[],
    timeoutMs,
    testTimeoutMs,
    freshTopic,
    appendSeq,
    subscribe,
    collect,
    waitFor,
    waitCommitted,
  };
  return h;
}
