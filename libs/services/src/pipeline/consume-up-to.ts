import { ConsumedMessage, EventLog, LogPosition, reached } from '@engram/ports';

/**
 * Reads a topic from a group's position up to `end` (taken before starting),
 * handing each message below it to `onBatch`; messages appended meanwhile are
 * left for next time. Finishing is decided inside the handler, not by a timer, so a
 * consumer that keeps finding new messages still stops.
 */
export async function consumeUpTo(
  eventLog: EventLog,
  topic: string,
  group: string,
  end: LogPosition,
  onBatch: (messages: readonly ConsumedMessage[]) => Promise<void>,
  options: { readonly maxBatchSize?: number } = {},
): Promise<void> {
  if (reached(await eventLog.committedPosition(topic, group), end)) return;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subscription = await eventLog.subscribe({ topic, group, maxBatchSize: options.maxBatchSize }, async (messages) => {
    await onBatch(messages.filter((m) => m.offset < (end[m.partition] ?? 0)));
    const seen: Record<number, number> = {};
    for (const m of messages) seen[m.partition] = Math.max(seen[m.partition] ?? 0, m.offset + 1);
    const committed = await eventLog.committedPosition(topic, group);
    if (reached({ ...committed, ...seen }, end)) done();
  });
  await finished;
  await subscription.stop();
}
