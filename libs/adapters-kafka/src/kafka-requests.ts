// What the Kafka event log costs, request by request: every request its clients send, by Kafka API name.
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';

/**
 * The client whose producers, consumers and admins report each request they send to a broker
 * (answered or timed out) to `onRequest`, by its Kafka API name (`Produce`, `Fetch`,
 * `OffsetCommit`…), from kafkajs's instrumentation events.
 */
export function countingRequests(kafka: Kafka, onRequest: (operation: string) => void): Kafka {
  const counting: Pick<Kafka, 'producer' | 'consumer' | 'admin'> = {
    producer: (config) => counted(kafka.producer(config), onRequest),
    consumer: (config) => counted(kafka.consumer(config), onRequest),
    admin: (config) => counted(kafka.admin(config), onRequest),
  };
  return Object.assign(Object.create(kafka) as Kafka, counting);
}

function counted<C extends Producer | Consumer | Admin>(client: C, onRequest: (operation: string) => void): C {
  const count = (event: { payload: { apiName: string } }) => onRequest(event.payload.apiName);
  // Each kind of client has its own event names for the same network events.
  const { REQUEST, REQUEST_TIMEOUT } = client.events as { REQUEST: string; REQUEST_TIMEOUT: string };
  const on = client.on as (event: string, listener: typeof count) => unknown;
  on.call(client, REQUEST, count);
  on.call(client, REQUEST_TIMEOUT, count);
  return client;
}
