// When a Kafka call failed because the brokers are away, not because of the call.
import { type OutageObserver, reportingOutages } from '@engram/ports';

/** kafkajs's errors for brokers that cannot be reached or did not answer in time (by name: kafkajs does not export every class). */
const OUTAGE_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSTimeout',
  'KafkaJSLockTimeout',
  // engram's: the broker answered offsets without partitions (kafka-event-log.adapter.ts)
  'KafkaOffsetsUnavailable',
]);

/** Socket errors of a server that is away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * An outage of Kafka: a broker that refuses, drops or does not answer a connection or a request
 * (kafkajs's connection and timeout errors, wrapped or not in "retries exceeded"), or a protocol
 * error kafkajs calls retriable that outlasted its retries (no leader, the coordinator loading or
 * moving). Any other error (a record too large, an unknown topic, a refused offset) is the call's.
 */
export function isKafkaOutage(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current);) {
    seen.add(current);
    const { name, code, retriable } = current as { name?: unknown; code?: unknown; retriable?: unknown };
    if (typeof name === 'string' && OUTAGE_ERRORS.has(name)) return true;
    if (name === 'KafkaJSProtocolError' && retriable === true) return true;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    current = (current as { cause?: unknown; originalError?: unknown }).cause ?? (current as { originalError?: unknown }).originalError;
  }
  return false;
}

/** An event log whose outages are `DependencyUnavailableError('kafka')`: stages pause on them, HTTP answers 503. */
export function withKafkaOutages<T extends object>(log: T, observer?: OutageObserver): T {
  return reportingOutages(log, 'kafka', isKafkaOutage, observer);
}
