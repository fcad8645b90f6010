// The Kafka event log's consumer loop: one kafkajs consumer per subscription, delivering its
// partitions' batches in chunks, retrying a failed chunk in place, committing after each.
import type { BatchContext, BatchHandler, ConsumedMessage } from '@engram/ports';
import { parseLogValue } from '@engram/ports';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { KafkaHandlerFailure, ResolvedOptions } from './kafka-options';

/** A fetch under linger waits for this much data (Kafka's `fetch.min.bytes`), or for `lingerMs`. */
const LINGER_MIN_BYTES = 1024 * 1024;

export function fetchWait(options: { readonly maxWaitTimeMs: number; readonly lingerMs: number }): {
  minBytes: number;
  maxWaitTimeInMs: number;
} {
  return options.lingerMs > 0
    ? { minBytes: LINGER_MIN_BYTES, maxWaitTimeInMs: options.lingerMs }
    : { minBytes: 1, maxWaitTimeInMs: options.maxWaitTimeMs };
}

/** Thrown out of the retry wait when the subscription stops: the failed batch stays uncommitted. */
class Abandoned extends Error {}

/** One subscription: one kafkajs consumer in the group, delivering its partitions' batches in chunks. */
export class KafkaSubscription {
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly topic: string,
    readonly group: string,
    private readonly maxBatchSize: number,
    private readonly handler: BatchHandler,
    private readonly consumer: Consumer,
    private readonly options: ResolvedOptions,
    private readonly release: () => void,
  ) {}

  /** Resolves once the consumer has joined the group and been assigned its partitions. */
  async start(): Promise<void> {
    await this.consumer.connect();
    // fromBeginning applies only to a group without committed offsets.
    await this.consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    // disconnect() stops the runner, which waits for the eachBatch in flight (it
    // commits its last chunk), leaves the group and closes the connections.
    this.stopped ??= this.consumer.disconnect().finally(this.release);
    return this.stopped;
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const live = () => !this.stopping && payload.isRunning() && !payload.isStale();
    const context: BatchContext = { isRunning: live, heartbeat: () => payload.heartbeat() };
    for (let start = 0; start < batch.messages.length; start += this.maxBatchSize) {
      // Checked before each chunk: after stop() or a seek, nothing more is delivered and
      // nothing is resolved, so the rest is fetched again from the last commit.
      if (!live()) return;
      const chunk = batch.messages.slice(start, start + this.maxBatchSize);
      const delivered = await this.deliver(chunk.map(this.toMessage(batch.partition)), context, live);
      if (!delivered) return;
      const last = chunk[chunk.length - 1].offset;
      // Committed right after the handler resolved: a crash replays at most this chunk. Resolved
      // (the fetch position moves on) only once committed: a failed commit throws out of eachBatch,
      // and kafkajs's retry fetches this chunk again rather than leaving it handled but uncommitted.
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: this.topic, partitions: [{ partition: batch.partition, offset: String(Number(last) + 1) }] }],
      });
      payload.resolveOffset(last);
      if (this.stopping) return;
      await payload.heartbeat();
    }
  }

  /**
   * Runs the handler until it resolves, retrying in place with a doubling delay (heartbeating so
   * the group keeps the partition). False when the subscription stopped or lost the partition
   * meanwhile: the chunk stays uncommitted and is redelivered to whoever consumes next.
   */
  private async deliver(messages: ConsumedMessage[], context: BatchContext, live: () => boolean): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler(messages, context);
        return true;
      } catch (error) {
        const retryInMs = Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** (attempt - 1));
        this.report(error, {
          topic: this.topic,
          group: this.group,
          partition: messages[0].partition,
          firstOffset: messages[0].offset,
          lastOffset: messages[messages.length - 1].offset,
          attempt,
          retryInMs,
        });
        if (!live()) return false;
        try {
          await this.backOff(retryInMs, context);
        } catch (abandoned) {
          if (abandoned instanceof Abandoned) return false;
          throw abandoned; // a rebalance seen by the heartbeat: kafkajs rejoins, the chunk is redelivered
        }
        if (!live()) return false;
      }
    }
  }

  /** Waits `ms`, heartbeating; rejects with Abandoned as soon as stop() is called. */
  private async backOff(ms: number, context: BatchContext): Promise<void> {
    const deadline = Date.now() + ms;
    const slice = Math.max(10, Math.min(this.options.heartbeatIntervalMs, 1_000));
    while (Date.now() < deadline) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakers.delete(wake);
          reject(new Abandoned());
        };
        const timer = setTimeout(
          () => {
            this.wakers.delete(wake);
            resolve();
          },
          Math.min(slice, deadline - Date.now()),
        );
        this.wakers.add(wake);
        if (this.stopping) wake();
      });
      await context.heartbeat(); // kafkajs throttles it to heartbeatInterval
    }
  }

  private toMessage =
    (partition: number) =>
    (message: KafkaMessage): ConsumedMessage => {
      const raw = message.value?.toString('utf8') ?? '';
      return {
        topic: this.topic,
        partition,
        offset: Number(message.offset),
        key: message.key?.toString('utf8') ?? '',
        value: parseLogValue(raw),
        raw,
        timestamp: Number(message.timestamp),
      };
    };

  private report(error: unknown, failure: KafkaHandlerFailure): void {
    try {
      this.options.onHandlerError(error, failure);
    } catch {
      // A failing error reporter must not stop the loop.
    }
  }
}
