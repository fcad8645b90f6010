// encrypt-log's first pass over the log: per topic and partition, the offsets (gapless), a digest of
// the messages, what is still plaintext, and where each user was forgotten.
import { createHash, type Hash } from 'node:crypto';
import { topicVersionOf } from '@engram/contracts';
import type { ConsumedMessage, EventLog, LogPosition, ResetTarget } from '@engram/ports';
import { holdsNoPlaintext, identityOf, isEventShaped, userOf } from './encrypt-log-messages';
import { EncryptLogConflict, type EncryptLogOptions } from './encrypt-log.types';

/** Reads a topic from a position up to `end` with the run's group (LogEncryptor.read). */
export type ReadTopic = (
  topic: string,
  group: string,
  from: ResetTarget,
  end: LogPosition,
  onBatch: (messages: readonly ConsumedMessage[]) => Promise<void>,
) => Promise<void>;

/** One user's forgets in one topic: which (by event id), and the offset of the last one per partition. */
export interface Forgets {
  readonly ids: Set<string>;
  readonly last: Map<number, number>;
}

/** What the scan of one source topic found, per partition. */
export interface Scanned {
  /** Without version suffix. */
  readonly topic: string;
  /** As stored, in the version read. */
  readonly stored: string;
  readonly end: LogPosition;
  /** First offset each partition still holds (Kafka's retention may have deleted earlier ones). */
  readonly low: Map<number, number>;
  readonly count: Map<number, number>;
  /** sha256 of the messages' identities, in order: the copy must have the same. */
  readonly digest: Map<number, string>;
  plaintext: number;
}

/** The UserForgotten events the scan found: per topic and user, and every user's across topics. */
export class ForgetsFound {
  readonly inTopics = new Map<string, Map<string, Forgets>>();
  readonly users = new Map<string, Set<string>>();

  /**
   * Whether a user was forgotten after the message at (topic, partition, offset): a
   * UserForgotten follows it in the topic, or one of the user's forgets has not reached the topic
   * yet (it travels down the topics in order, so everything of the user there precedes it).
   */
  after(topic: string, partition: number, offset: number, tenantId: string, userId: string): boolean {
    const user = userOf(tenantId, userId);
    const all = this.users.get(user);
    if (!all) return false;
    const here = this.inTopics.get(topic)?.get(user);
    if (!here || [...all].some((id) => !here.ids.has(id))) return true;
    const last = here.last.get(partition);
    return last === undefined || offset < last;
  }
}

export async function scanTopics(
  stored: EventLog,
  read: ReadTopic,
  sources: readonly string[],
  group: string,
  options: EncryptLogOptions,
): Promise<{ scanned: Scanned[]; forgotten: ForgetsFound }> {
  const found = new ForgetsFound();
  const ends = await Promise.all(sources.map((t) => stored.endPosition(t)));
  const total = ends.reduce((sum, end) => sum + Object.values(end).reduce((a, b) => a + b, 0), 0);
  let done = 0;
  options.onProgress?.({ phase: 'scanning', done, total });
  const scanned: Scanned[] = [];
  for (const [i, stored] of sources.entries()) {
    const topic = topicVersionOf(stored).topic;
    const end = ends[i];
    const result: Scanned = { topic, stored, end, low: new Map(), count: new Map(), digest: new Map(), plaintext: 0 };
    const hashes = new Map<number, Hash>();
    const next = new Map<number, number>();
    const inTopic = new Map<string, Forgets>();
    found.inTopics.set(topic, inTopic);
    await read(stored, group, { to: 'beginning' }, end, async (messages) => {
      for (const m of messages) {
        const expected = next.get(m.partition);
        if (expected !== undefined && m.offset !== expected) {
          throw new EncryptLogConflict(
            `${stored} partition ${m.partition} jumps from offset ${expected} to ${m.offset} (compacted, or written in transactions): encrypt-log copies gapless topics only`,
          );
        }
        if (expected === undefined) result.low.set(m.partition, m.offset);
        next.set(m.partition, m.offset + 1);
        result.count.set(m.partition, (result.count.get(m.partition) ?? 0) + 1);
        let hash = hashes.get(m.partition);
        if (!hash) hashes.set(m.partition, (hash = createHash('sha256')));
        hash.update(identityOf(m.key, m.raw, m.value)).update('\u0001');
        if (!holdsNoPlaintext(m.value)) result.plaintext++;
        if (isEventShaped(m.value) && m.value.type === 'UserForgotten') {
          const user = userOf(m.value.tenantId, m.value.userId);
          const forgets = inTopic.get(user) ?? { ids: new Set(), last: new Map() };
          inTopic.set(user, forgets);
          forgets.ids.add(m.value.eventId);
          forgets.last.set(m.partition, m.offset);
          const all = found.users.get(user) ?? new Set();
          found.users.set(user, all.add(m.value.eventId));
        }
      }
      done += messages.length;
      options.onProgress?.({ phase: 'scanning', done, total });
    });
    for (const [partition, offset] of Object.entries(end)) {
      const p = Number(partition);
      if (!result.low.has(p)) result.low.set(p, offset); // nothing left in it
      result.count.set(p, result.count.get(p) ?? 0);
      result.digest.set(p, hashes.get(p)?.digest('hex') ?? 'empty');
      if (result.low.get(p)! + result.count.get(p)! !== offset) {
        throw new EncryptLogConflict(
          `${stored} partition ${p}: read ${result.count.get(p)} messages from offset ${result.low.get(p)} up to ${offset}: the topic changed while it was read`,
        );
      }
    }
    scanned.push(result);
  }
  return { scanned, forgotten: found };
}

export const sumOf = (counts: ReadonlyMap<number, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
