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

/**
 * consumeUpTo that gives up: the log retries a failing batch in place (with backoff), which
 * for a reprocess or encrypt-log — an unreachable LLM or key store, a store that refuses — would wait forever. After
 * `attempts` consecutive failures of a batch it stops and rejects with the error.
 */
export async function consumeUpToOrFail(
  eventLog: EventLog,
  topic: string,
  group: string,
  end: LogPosition,
  onBatch: (messages: readonly ConsumedMessage[]) => Promise<void>,
  options: { maxBatchSize: number; attempts: number },
): Promise<void> {
  if (reached(await eventLog.committedPosition(topic, group), end)) return;
  let finish!: (error?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => (finish = (error) => (error === undefined ? resolve() : reject(error))));
  let failures = 0;
  const subscription = await eventLog.subscribe({ topic, group, maxBatchSize: options.maxBatchSize }, async (messages) => {
    try {
      await onBatch(messages.filter((m) => m.offset < (end[m.partition] ?? 0)));
      failures = 0;
    } catch (error) {
      if (++failures >= options.attempts) finish(error);
      throw error;
    }
    const seen: Record<number, number> = {};
    for (const m of messages) seen[m.partition] = Math.max(seen[m.partition] ?? 0, m.offset + 1);
    if (reached({ ...(await eventLog.committedPosition(topic, group)), ...seen }, end)) finish();
  });
  try {
    await finished;
  } finally {
    await subscription.stop();
  }
}
