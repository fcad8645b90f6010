// kafkajs's logging for the Kafka event log (routine protocol errors demoted to info) and the
// default report of a failed batch.
import { type LogEntry, logLevel as KafkaJsLogLevel } from 'kafkajs';
import type { KafkaConsumerFailure, KafkaHandlerFailure, KafkaLogLevel } from './kafka-options';

export const LOG_LEVELS: Record<KafkaLogLevel, KafkaJsLogLevel> = {
  nothing: KafkaJsLogLevel.NOTHING,
  error: KafkaJsLogLevel.ERROR,
  warn: KafkaJsLogLevel.WARN,
  info: KafkaJsLogLevel.INFO,
  debug: KafkaJsLogLevel.DEBUG,
};

/**
 * Protocol errors that kafkajs's connection layer logs as errors although they are routine and
 * handled: every rebalance (kafkajs rejoins) and a partition whose leadership is still settling
 * (retried; an error that persists still reaches the caller), and CreateTopics answering that a
 * topic already exists (several stages ensure the same topics at start; `createTopics` resolves,
 * and any other creation error rejects it).
 */
const ROUTINE_PROTOCOL_ERRORS = /rebalanc|not aware of this member|generation id is not valid|leader|topic creation errors/i;

/** kafkajs's console format, with routine protocol errors demoted to info. */
export function quietLogCreator(level: KafkaJsLogLevel) {
  return ({ namespace, level: entryLevel, label, log }: LogEntry): void => {
    let effective = entryLevel;
    const routine = namespace === 'Connection' && ROUTINE_PROTOCOL_ERRORS.test(String(log.error));
    if (routine && entryLevel === KafkaJsLogLevel.ERROR) effective = KafkaJsLogLevel.INFO;
    if (effective > level) return;
    const line = JSON.stringify({
      ...log,
      level: effective === entryLevel ? label : 'INFO',
      message: namespace ? `[${namespace}] ${log.message}` : log.message,
    });
    if (effective === KafkaJsLogLevel.ERROR) console.error(line);
    else if (effective === KafkaJsLogLevel.WARN) console.warn(line);
    else console.info(line);
  };
}

export function defaultOnHandlerError(error: unknown, failure: KafkaHandlerFailure): void {
  const reason = error instanceof Error ? error.message : String(error);
  console.warn(
    `[engram] ${failure.topic}[${failure.partition}] / ${failure.group}: ` +
      `batch ${failure.firstOffset}..${failure.lastOffset} failed (attempt ${failure.attempt}), ` +
      `retrying in ${failure.retryInMs} ms: ${reason}`,
  );
}

export function defaultOnConsumerFailure(error: unknown, failure: KafkaConsumerFailure): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.warn(`[engram] ${failure.topic} / ${failure.group}: the consumer ${failure.what}: ${reason}`);
}
