import { EventEmitter } from 'node:events';
import { type BatchContext, type BatchHandler, type ConsumedMessage, parseLogValue } from '@engram/ports';
import { appendedEvent, type HandlerFailure, type MessageRow, PARTITION, type SqliteEventLogOptions } from './sqlite-log-signals';

/** One subscription's loop: read from the position, await the handler, commit, repeat. */
export class SqliteConsumer {
  private running = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private wakeOnAppend = false;
  private appended = false;
  private readonly onAppend = () => {
    this.appended = true;
    if (this.wakeOnAppend) this.wake?.();
  };
  private readonly context: BatchContext = {
    isRunning: () => this.running,
    heartbeat: async () => undefined,
  };

  constructor(
    private readonly topic: string,
    private readonly group: string,
    private readonly maxBatchSize: number,
    private readonly handler: BatchHandler,
    private readonly options: Required<SqliteEventLogOptions>,
    private readonly signals: EventEmitter,
    private position: number,
    private readonly read: (offsets: { from: number; limit: number }) => MessageRow[],
    private readonly commit: (next: number) => void,
    private readonly release: () => void,
  ) {}

  start(): void {
    this.signals.on(appendedEvent(this.topic), this.onAppend);
    this.loop = this.run().finally(() => {
      this.signals.off(appendedEvent(this.topic), this.onAppend);
      this.release();
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    // Each retry of a failed batch reads half of it: a batch that fails only for its size (a call
    // outlasting its timeout) still goes through, a part at a time; after a success it grows back.
    let limit = this.maxBatchSize;
    while (this.running) {
      this.appended = false;
      let rows: MessageRow[] = [];
      try {
        rows = this.read({ from: this.position, limit });
        if (rows.length === 0) {
          if (!this.appended) await this.sleep(this.options.pollIntervalMs, true);
          continue;
        }
        if (rows.length < limit && this.options.lingerMs > 0 && this.running) {
          await this.sleep(this.options.lingerMs, false);
          rows = this.read({ from: this.position, limit });
        }
        await this.handler(rows.map(this.toMessage), this.context);
        const next = rows[rows.length - 1].log_offset + 1;
        this.commit(next);
        this.position = next;
        attempt = 0;
        limit = Math.min(this.maxBatchSize, limit * 2);
        // Yield to timers and I/O: a handler that appends to its own topic must not starve the process.
        await new Promise((resolve) => setImmediate(resolve));
      } catch (error) {
        // Not committed: the batch's first half is read again after the backoff, nothing is skipped.
        attempt++;
        if (rows.length > 0) limit = Math.ceil(rows.length / 2);
        const retryInMs = Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** (attempt - 1));
        this.report(error, {
          topic: this.topic,
          group: this.group,
          firstOffset: rows[0]?.log_offset ?? this.position,
          lastOffset: rows[rows.length - 1]?.log_offset ?? this.position,
          attempt,
          retryInMs,
        });
        if (this.running) await this.sleep(retryInMs, false);
      }
    }
  }

  private readonly toMessage = (row: MessageRow): ConsumedMessage => ({
    topic: this.topic,
    partition: PARTITION,
    offset: row.log_offset,
    key: row.key,
    value: parseLogValue(row.value),
    raw: row.value,
    timestamp: row.timestamp,
  });

  private report(error: unknown, failure: HandlerFailure): void {
    try {
      this.options.onHandlerError(error, failure);
    } catch {
      // A failing error reporter must not stop the loop.
    }
  }

  /** Resolves after `ms`, on stop, or (when idle, not when backing off) on an append to the topic. */
  private sleep(ms: number, wakeOnAppend: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.wakeOnAppend = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      this.wakeOnAppend = wakeOnAppend;
      if (!this.running) done();
    });
  }
}
