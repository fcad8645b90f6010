import {
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
} from 'kafkajs';
import { KafkaOffsetsUnavailable } from './kafka-event-log.adapter';
import { isKafkaOutage } from './kafka-outages';

describe('isKafkaOutage: the brokers are away, or the call is at fault', () => {
  const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092', { code: 'ECONNREFUSED' } as never);

  it.each<[string, unknown]>([
    ['a refused connection', refused],
    [
      'the same after kafkajs gave up retrying',
      new KafkaJSNumberOfRetriesExceeded(refused as never, { retryCount: 5, retryTime: 3000 } as never),
    ],
    ['a request unanswered in time', new KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out', {} as never)],
    [
      'a retriable protocol error (no leader)',
      new KafkaJSProtocolError({ type: 'LEADER_NOT_AVAILABLE', code: 5, retriable: true, message: 'x' } as never),
    ],
    ['a socket error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    [
      'offsets answered without partitions (a broker just back)',
      new KafkaOffsetsUnavailable('memory.turns.v1', new TypeError("Cannot destructure property 'partitions' of 'high.pop(...)'")),
    ],
  ])('%s: an outage', (_name, error) => {
    expect(isKafkaOutage(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a record too large', new KafkaJSProtocolError({ type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false, message: 'x' } as never)],
    ['a kafkajs error of the call', new KafkaJSError('Invalid topic', { retriable: false })],
    ['a plain error', new Error('boom')],
  ])('%s: the call', (_name, error) => {
    expect(isKafkaOutage(error)).toBe(false);
  });
});
