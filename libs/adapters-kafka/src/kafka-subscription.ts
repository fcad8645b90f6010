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

/** Resolves when `promise` settles or after `ms`, whichever comes first; never rejects. */
async function bounded(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise?.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Thrown out of the retry wait when the subscription stops: the failed batch stays uncommitted. */
class Abandoned extends Error {}

/**
 * One subscription: one kafkajs consumer in the group at a time, delivering its partitions'
 * batches in chunks — and kept alive. kafkajs restarts a consumer after most failures, but not
 * all: a crash it does not restart from, or a consumer left doing nothing after its broker hung
 * and came back (kafkajs#659), would hold the group's partitions forever while its lag grows.
 * So the subscription watches for signs of life (a request, a timed-out request, a fetch, a join,
 * a heartbeat) and, when a crash is final or no sign comes for `stallTimeoutMs` outside a batch,
 * replaces the consumer with a new one in the same group. Nothing is lost by it: what was not
 * committed is fetched again (at-least-once; projections are idempotent).
 */
export class KafkaSubscription {
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();
  private consumer: Consumer | undefined;
  /** When the current consumer last showed it is alive. */
  private lastSign = Date.now();
  /** Batches the handler is working on: a stage paused on a dependency is not a stalled consumer. */
  private inBatch = 0;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private replacing: Promise<void> | undefined;

  constructor(
    readonly topic: string,
    readonly group: string,
    private readonly maxBatchSize: number,
    private readonly handler: BatchHandler,
    private readonly newConsumer: () => Consumer,
    private readonly options: ResolvedOptions,
    private readonly release: () => void,
  ) {}

  /** Resolves once the consumer has joined the group and been assigned its partitions. */
  async start(): Promise<void> {
    await this.launch();
    this.watchdog = setInterval(() => this.checkAlive(), Math.max(100, Math.floor(this.options.stallTimeoutMs / 4)));
    this.watchdog.unref();
  }

  stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.watchdog);
    for (const wake of this.wakers) wake();
    // disconnect() stops the runner, which waits for the eachBatch in flight (it
    // commits its last chunk), leaves the group and closes the connections.
    this.stopped ??= (async () => {
      await this.replacing;
      await this.consumer?.disconnect();
    })().finally(this.release);
    return this.stopped;
  }

  private async launch(): Promise<void> {
    const consumer = this.newConsumer();
    this.consumer = consumer;
    this.lastSign = Date.now();
    const sign = () => {
      if (this.consumer === consumer) this.lastSign = Date.now();
    };
    const { REQUEST, REQUEST_TIMEOUT, FETCH_START, GROUP_JOIN, HEARTBEAT, CRASH } = consumer.events;
    for (const event of [REQUEST, REQUEST_TIMEOUT, FETCH_START, GROUP_JOIN, HEARTBEAT]) consumer.on(event, sign);
    consumer.on(CRASH, ({ payload }) => {
      if (this.consumer !== consumer || this.stopping) return;
      // Restarting, kafkajs has already disconnected it and starts it again after its backoff.
      this.reportReplaced(payload.error, payload.restart ? 'crashed; kafkajs restarts it' : 'crashed for good; replacing it');
      if (!payload.restart) void this.replace();
    });
    await consumer.connect();
    // fromBeginning applies only to a group without committed offsets.
    await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  /** A consumer that shows no sign of life outside a batch is stalled: replaced. */
  private checkAlive(): void {
    if (this.stopping || this.replacing || this.inBatch > 0) return;
    const silentMs = Date.now() - this.lastSign;
    if (silentMs <= this.options.stallTimeoutMs) return;
    this.reportReplaced(new Error(`no sign of life for ${silentMs} ms`), 'stalled; replacing it');
    void this.replace();
  }

  /** Disconnects the consumer (bounded) and launches a new one in the group, retrying until it joins or the subscription stops. */
  private replace(): Promise<void> {
    this.replacing ??= (async () => {
      const old = this.consumer;
      this.consumer = undefined;
      await bounded(old?.disconnect(), this.options.stallTimeoutMs);
      for (let attempt = 1; !this.stopping; attempt++) {
        try {
          await this.launch();
          return;
        } catch (error) {
          this.reportReplaced(error, `could not start its replacement (attempt ${attempt})`);
          // launch() set the consumer before it failed (TypeScript cannot see that through the call).
          const failed = this.consumer as Consumer | undefined;
          this.consumer = undefined;
          await bounded(failed?.disconnect(), this.options.stallTimeoutMs);
          await this.sleep(Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** attempt));
        }
      }
    })().finally(() => {
      this.replacing = undefined;
      this.lastSign = Date.now();
    });
    return this.replacing;
  }

  /** Waits `ms`, or less if the subscription stops meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
      if (this.stopping) wake();
    });
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    this.inBatch++;
    try {
      await this.deliverBatch(payload);
    } finally {
      this.inBatch--;
      this.lastSign = Date.now();
    }
  }

  private async deliverBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const live = () => !this.stopping && payload.isRunning() && !payload.isStale();
    const context: BatchContext = { isRunning: live, heartbeat: () => payload.heartbeat() };
    const messages = batch.messages.map(this.toMessage(batch.partition));
    let size = this.maxBatchSize;
    for (let start = 0; start < messages.length;) {
      // Checked before each chunk: after stop() or a seek, nothing more is delivered and
      // nothing is resolved, so the rest is fetched again from the last commit.
      if (!live()) return;
      const delivered = await this.deliver(messages.slice(start, start + size), context, live);
      if (delivered === 0) return;
      // A chunk that had to be cut to go through: the next ones start at that size and grow back.
      size = delivered < Math.min(size, messages.length - start) ? delivered : Math.min(this.maxBatchSize, size * 2);
      start += delivered;
      const last = batch.messages[start - 1].offset;
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
   * the group keeps the partition), and each retry on the first half of what failed: a chunk that
   * fails only for its size — a store's bulk write outlasting its timeout — still goes through, a
   * part at a time, instead of failing whole forever. Returns how many messages (the first ones of
   * `messages`) were handled; 0 when the subscription stopped or lost the partition meanwhile: the
   * chunk stays uncommitted and is redelivered to whoever consumes next.
   */
  private async deliver(messages: ConsumedMessage[], context: BatchContext, live: () => boolean): Promise<number> {
    let take = messages.length;
    for (let attempt = 1; ; attempt++) {
      const part = messages.slice(0, take);
      try {
        await this.handler(part, context);
        return take;
      } catch (error) {
        const retryInMs = Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** (attempt - 1));
        this.report(error, {
          topic: this.topic,
          group: this.group,
          partition: part[0].partition,
          firstOffset: part[0].offset,
          lastOffset: part[part.length - 1].offset,
          attempt,
          retryInMs,
        });
        if (!live()) return 0;
        try {
          await this.backOff(retryInMs, context);
        } catch (abandoned) {
          if (abandoned instanceof Abandoned) return 0;
          throw abandoned; // a rebalance seen by the heartbeat: kafkajs rejoins, the chunk is redelivered
        }
        if (!live()) return 0;
        take = Math.ceil(take / 2);
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

  private reportReplaced(error: unknown, what: string): void {
    try {
      this.options.onConsumerFailure(error, { topic: this.topic, group: this.group, what });
    } catch {
      // A failing reporter must not stop the supervision.
    }
  }

  private report(error: unknown, failure: KafkaHandlerFailure): void {
    try {
      this.options.onHandlerError(error, failure);
    } catch {
      // A failing error reporter must not stop the loop.
    }
  }
}
