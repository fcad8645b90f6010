// encrypt-log's copy: each topic into the next version, message for message, partition for partition,
// plaintext payloads sealed with their user's key (or shredded when the user was forgotten after them).
import { topicVersionOf, versionedTopic } from '@engram/contracts';
import { eventAssociatedData, sealText } from '@engram/domain';
import { type ConsumedMessage, type EventLog, type LogMigration, serialiseLogValue, type StoredMessage } from '@engram/ports';
import { isDeadLetter } from '../transport/dead-letter';
import { DataKeyRing } from './data-key-ring';
import { type EventShape, isEventShaped, isPlaintext, parse, userOf, type Verdict } from './encrypt-log-messages';
import { type ForgetsFound, type ReadTopic, type Scanned, sumOf } from './encrypt-log-scan';
import { EncryptLogConflict, type EncryptedTopic, type EncryptLogOptions } from './encrypt-log.types';

export class LogCopier {
  constructor(
    private readonly stored: EventLog,
    private readonly read: ReadTopic,
    private readonly keys: DataKeyRing,
    private readonly forgotten: ForgetsFound,
  ) {}

  async copyAll(
    scanned: readonly Scanned[],
    migration: LogMigration,
    group: string,
    options: EncryptLogOptions,
  ): Promise<EncryptedTopic[]> {
    const total = scanned.reduce((sum, s) => sum + sumOf(s.count), 0);
    let done = 0;
    options.onProgress?.({ phase: 'sealing', done, total });
    const reports: EncryptedTopic[] = [];
    for (const source of scanned) {
      const target = versionedTopic(source.topic, migration.to);
      await this.stored.ensureTopics([target]);
      const partitions = Object.keys(await this.stored.endPosition(target)).length;
      if (partitions !== source.count.size) {
        throw new EncryptLogConflict(
          `${target} has ${partitions} partitions, ${source.stored} ${source.count.size}: the copy needs as many (engram encrypt-log --abort, then run again with KAFKA_PARTITIONS=${source.count.size})`,
        );
      }
      const report = { topic: source.topic, messages: sumOf(source.count), sealed: 0, shredded: 0, unchanged: 0, unattributed: 0 };
      const copied = await this.stored.endPosition(target);
      for (const [p, n] of Object.entries(copied)) {
        if (n > (source.count.get(Number(p)) ?? 0))
          throw new EncryptLogConflict(
            `${target} partition ${p} holds ${n} messages, more than ${source.stored} has: abort (engram encrypt-log --abort) and run again`,
          );
      }
      done += sumOf(new Map(Object.entries(copied).map(([p, n]) => [Number(p), n])));
      options.onProgress?.({ phase: 'sealing', done, total });
      const start: Record<number, number> = {};
      for (const [p, low] of source.low) start[p] = low + (copied[p] ?? 0);
      await this.read(source.stored, group, { to: 'position', position: start }, source.end, async (messages) => {
        // The new topic's end is the checkpoint: what a failed or interrupted batch already wrote is not written twice.
        const there = await this.stored.endPosition(target);
        const batch: StoredMessage[] = [];
        for (const m of messages) {
          if (m.offset - source.low.get(m.partition)! < (there[m.partition] ?? 0)) continue;
          const verdict = await this.seal(source.topic, m);
          report[verdict.kind]++;
          batch.push({ key: m.key, raw: verdict.raw, partition: m.partition, timestamp: m.timestamp });
        }
        await this.stored.appendStored(target, batch);
        done += batch.length;
        options.onProgress?.({ phase: 'sealing', done, total });
      });
      reports.push(report);
    }
    return reports;
  }

  /** The message as the new version stores it. */
  private async seal(topic: string, m: ConsumedMessage): Promise<Verdict> {
    const value = m.value;
    if (isEventShaped(value)) {
      if (!isPlaintext(value)) return { kind: 'unchanged', raw: m.raw };
      return this.sealEvent(value, this.forgotten.after(topic, m.partition, m.offset, value.tenantId, value.userId));
    }
    if (isDeadLetter(value)) {
      // A dead letter keeps the original bytes of its event: seal those, judged where the event was.
      const inner = parse(value.raw);
      if (!isEventShaped(inner)) return { kind: 'unattributed', raw: m.raw };
      if (!isPlaintext(inner)) return { kind: 'unchanged', raw: m.raw };
      const source = topicVersionOf(value.topic).topic;
      const known = this.forgotten.inTopics.has(source);
      const forgotten = known
        ? this.forgotten.after(source, value.partition, value.offset, inner.tenantId, inner.userId)
        : this.forgotten.users.has(userOf(inner.tenantId, inner.userId));
      const sealed = await this.sealEvent(inner, forgotten);
      return { kind: sealed.kind, raw: serialiseLogValue({ ...value, raw: sealed.raw }) };
    }
    return { kind: 'unattributed', raw: m.raw };
  }

  private async sealEvent(event: EventShape, forgotten: boolean): Promise<Verdict> {
    const associatedData = eventAssociatedData(event.tenantId, event.userId, event.eventId);
    if (forgotten) {
      // Envelope only: the payload is gone, and what stands in its place opens for no one.
      return { kind: 'shredded', raw: serialiseLogValue({ ...event, payload: sealText(this.keys.throwaway(), '{}', associatedData) }) };
    }
    const key = await this.keys.current(event.tenantId, event.userId);
    return { kind: 'sealed', raw: serialiseLogValue({ ...event, payload: sealText(key, JSON.stringify(event.payload), associatedData) }) };
  }
}
