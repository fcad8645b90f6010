import { Kafka, Partitioners, type Producer } from 'kafkajs';
import { deployedTopic, Topics, versionedTopic } from '../../contracts/src/topics';
import type { TurnInput } from './engram-client';
import { checkTenantId, turnKey, turnRecordedEvents, TurnValidationError } from './turn-events';

export interface KafkaTurnProducerOptions {
  /** The tenant the turns belong to (what engram's API key would have said). */
  readonly tenantId: string;
  /** Bootstrap brokers, e.g. `['127.0.0.1:9092']`; or pass a configured `kafka` (TLS, SASL…). */
  readonly brokers?: readonly string[];
  readonly kafka?: Kafka;
  /** The deployment's ENGRAM_TOPIC_PREFIX (default none). */
  readonly topicPrefix?: string;
  /**
   * The version of the deployment's log (default 1): `engram encrypt-log` moves it on, and prints
   * the new one (the turns topic is then `memory.turns.v1.log<N>`).
   */
  readonly logVersion?: number;
  /** Default `engram-turn-producer`. */
  readonly clientId?: string;
  /** A send is split into Kafka requests of at most this many bytes, in order (default 512 KiB, under the broker's 1 MiB). */
  readonly maxSendBytes?: number;
}

export interface ProducedTurns {
  /** Turns written (a turnId repeated within the call counted once). */
  readonly accepted: number;
  /** Their `eventId`s, deterministic per (tenant, user, turnId). */
  readonly eventIds: readonly string[];
}

/**
 * Writes turns straight to engram's `memory.turns.v1`, for applications that already run Kafka:
 * the same `TurnRecorded` events as `POST /v1/turns` (PII masked before anything leaves the
 * process, deterministic ids, so a turn sent twice is remembered once), keyed `tenantId:userId`
 * so a user's turns stay in order, through an idempotent producer (acks from every replica, one
 * request in flight: a retried send neither duplicates nor reorders).
 */
export class KafkaTurnProducer {
  private readonly producer: Producer;
  private readonly topic: string;
  private readonly maxSendBytes: number;

  constructor(private readonly options: KafkaTurnProducerOptions) {
    if (!options.kafka && !options.brokers?.length) throw new TurnValidationError(['brokers or kafka must be given'], ['brokers']);
    // Checked now rather than on the first send: a producer for no valid tenant is a configuration error.
    checkTenantId(options.tenantId);
    const kafka = options.kafka ?? new Kafka({ clientId: options.clientId ?? 'engram-turn-producer', brokers: [...options.brokers!] });
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // murmur2 like Java's clients and engram's own producer: a key lands on the same partition whoever writes it.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.topic = versionedTopic(deployedTopic(options.topicPrefix, Topics.turns), options.logVersion ?? 1);
    this.maxSendBytes = options.maxSendBytes ?? 512 * 1024;
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  /** Validates, masks and writes one user's turns; throws TurnValidationError (nothing sent) naming the bad fields. */
  async send(userId: string, sessionId: string, turns: readonly TurnInput[]): Promise<ProducedTurns> {
    const events = turnRecordedEvents({ tenantId: this.options.tenantId, userId, sessionId, turns, recordedAt: new Date() });
    const key = turnKey(this.options.tenantId, userId);
    const messages = events.map((event) => ({ key, value: JSON.stringify(event) }));
    for (const chunk of bySize(messages, this.maxSendBytes)) {
      await this.producer.send({ topic: this.topic, acks: -1, messages: chunk });
    }
    return { accepted: events.length, eventIds: events.map((e) => e.eventId) };
  }
}

function bySize<T extends { key: string; value: string }>(messages: readonly T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
    if (chunk.length > 0 && bytes + size > maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
