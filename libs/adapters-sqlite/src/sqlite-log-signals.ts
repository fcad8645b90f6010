import { EventEmitter } from 'node:events';
import type { Database } from './sqlite-database';

/*
 * What the embedded log's appender and its consumers share: the options, the row a consumer reads,
 * and the per-database signals (an append wakes the consumers of its topic; one consumer per group).
 */

/** The embedded log has one partition per topic. */
export const PARTITION = 0;

export interface HandlerFailure {
  readonly topic: string;
  readonly group: string;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** 1 for the first failure of this batch, then 2, 3, … */
  readonly attempt: number;
  readonly retryInMs: number;
}

export interface SqliteEventLogOptions {
  /** How often an idle consumer looks for appends made by another process (the CLI). Default 25 ms. */
  readonly pollIntervalMs?: number;
  /** Delay before a failed batch is redelivered; doubles per attempt. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** Cap of the doubling retry delay. Default 10 s. */
  readonly maxRetryDelayMs?: number;
  /** Default batch size when a subscription names none. Default 500. */
  readonly maxBatchSize?: number;
  /**
   * How long a consumer that found a partial batch waits for it to fill before handing it over:
   * fewer, larger batches (one transaction each) at the cost of that much latency. Default 0.
   */
  readonly lingerMs?: number;
  /** Told about every failed batch (it will be retried, never skipped). Default: console.warn. */
  readonly onHandlerError?: (error: unknown, failure: HandlerFailure) => void;
}

export interface MessageRow {
  log_offset: number;
  key: string;
  value: string;
  timestamp: number;
}

// Shared per connection, so two adapters over one connection still wake each
// other and still count as one process for the one-consumer-per-group rule.
const appendSignals = new WeakMap<Database, EventEmitter>();
const runningConsumers = new WeakMap<Database, Set<string>>();

export function signalsOf(db: Database): EventEmitter {
  let emitter = appendSignals.get(db);
  if (!emitter) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    appendSignals.set(db, emitter);
  }
  return emitter;
}

export function consumersOf(db: Database): Set<string> {
  let set = runningConsumers.get(db);
  if (!set) {
    set = new Set();
    runningConsumers.set(db, set);
  }
  return set;
}

export const consumerKey = (topic: string, group: string) => JSON.stringify([topic, group]);
/** Namespaced so that no topic name (not even `error`) has special meaning to EventEmitter. */
export const appendedEvent = (topic: string) => `appended:${topic}`;

export function defaultOnHandlerError(error: unknown, failure: HandlerFailure): void {
  const reason = error instanceof Error ? error.message : String(error);
  console.warn(
    `[engram] ${failure.topic} / ${failure.group}: batch ${failure.firstOffset}..${failure.lastOffset} failed ` +
      `(attempt ${failure.attempt}), retrying in ${failure.retryInMs} ms: ${reason}`,
  );
}
