import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { deployedTopic, deterministicId, TurnRecorded } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { eventually } from '@engram/testing';
import { readDeadLetters, replayDeadLetters } from './dead-letters';
import { deadLetterTopic } from './dead-letter';
import { EngramMetrics } from '../observability/metrics';
import { EventLogTransport, StageBatch } from './event-log.transport';
import { StageController } from './rpc-passthrough.filter';

/** The event log one run of the suite works on. */
export interface DeadLetterSubject {
  readonly log: EventLog;
  /**
   * EventLogTransport's `topicPrefix`. The suite expects its topics to be new: on a shared
   * broker, a fresh prefix per run (and consumer groups scoped by it, as in production).
   */
  readonly topicPrefix: string;
  /** Stops the log and removes what the run created. */
  cleanup(): Promise<void>;
}

export interface DeadLetterSuiteOptions {
  /** How long to wait for a delivery (a Kafka group needs seconds to join). Default 10 s. */
  readonly timeoutMs?: number;
  /** Jest timeout of the setup and of the test. Default 60 s. */
  readonly testTimeoutMs?: number;
}

const TOPIC = 'memory.turns.v1';

function turn(turnId: string, text: string): TurnRecorded {
  const eventId = deterministicId('turn', 't', 'u', turnId);
  return {
    eventId,
    type: 'TurnRecorded',
    schemaVersion: 1,
    tenantId: 't',
    userId: 'u',
    occurredAt: '2026-11-30T08:00:00.000Z',
    recordedAt: '2026-11-30T08:00:00.000Z',
    causationId: null,
    correlationId: eventId,
    payload: { sessionId: 's', turnId, role: 'user', text },
  };
}

/**
 * Dead letters through the EventLogTransport, run unchanged on every event log
 * (the embedded SQLite log, Kafka): invalid and poison events leave the
 * partition, land in `<topic>.dlq` with their bytes and reason, and can be
 * re-driven with `readDeadLetters`/`replayDeadLetters` (`engram dlq`);
 * everything else keeps flowing, in order.
 */
export function deadLetterSuite(name: string, open: () => Promise<DeadLetterSubject>, options: DeadLetterSuiteOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const testTimeoutMs = options.testTimeoutMs ?? 60_000;

  describe(`EventLogTransport dead letters (${name})`, () => {
    /** Turn ids the stage handled, in order; per run of the suite. */
    const seen: string[] = [];
    let cured = false;

    /** A stage that cannot handle turns saying "poison" — until it is cured. */
    @StageController()
    class FragileStage {
      @EventPattern({ topic: TOPIC, group: 'fragile' })
      async handle(@Payload() batch: StageBatch): Promise<void> {
        for (const event of batch.events) {
          if (event.type !== 'TurnRecorded') continue;
          if (event.payload.text === 'poison' && !cured) throw new Error('cannot digest poison');
        }
        for (const event of batch.events) if (event.type === 'TurnRecorded') seen.push(event.payload.turnId);
      }
    }

    @Module({ controllers: [FragileStage] })
    class FragileModule {}

    let subject: DeadLetterSubject | undefined;
    let app: INestApplication | undefined;
    let topic: string;
    const metrics = new EngramMetrics();

    beforeAll(async () => {
      subject = await open();
      topic = deployedTopic(subject.topicPrefix, TOPIC);
      app = await NestFactory.create(FragileModule, { logger: false });
      app.connectMicroservice({
        strategy: new EventLogTransport(subject.log, { topicPrefix: subject.topicPrefix, attempts: 2, retryDelayMs: 1, metrics }),
      });
      // Resolves once the stage's subscription is running (on Kafka: joined its group).
      await app.startAllMicroservices();
      await app.init();
    }, testTimeoutMs);
    afterAll(async () => {
      try {
        await app?.close();
      } finally {
        await subject?.cleanup();
      }
    }, testTimeoutMs);

    it(
      'dead-letters invalid and poison events, keeps order for the rest, and re-drives them',
      async () => {
        const log = subject!.log;
        const end = await log.append(topic, [
          { key: 't:u', value: turn('a', 'I prefer tea') },
          { key: 't:u', value: { type: 'TurnRecorded', nonsense: true } },
          { key: 't:u', value: turn('b', 'poison') },
          { key: 't:u', value: turn('c', 'I prefer coffee') },
        ]);
        // The topic is new and all four share a key: they are offsets 0..3 of one partition.
        const written = Object.entries(end).filter(([, next]) => next > 0);
        expect(written.map(([, next]) => next)).toEqual([4]);
        const partition = Number(written[0][0]);

        await eventually(() => seen.includes('c'), 'the turn after the poison', timeoutMs);
        expect(seen).toEqual(['a', 'c']);

        const letters = await readDeadLetters(log, topic);
        expect(letters.map((l) => [l.reason, l.topic, l.partition, l.offset, l.stage])).toEqual([
          ['invalid', topic, partition, 1, 'fragile'],
          ['failed', topic, partition, 2, 'fragile'],
        ]);
        // Listing leaves no group behind (its throwaway group is deleted once read).
        expect(await log.listGroups(deadLetterTopic(topic), 'engram-dlq-list-')).toEqual([]);
        expect(letters[0].error).toContain('payload');
        expect(letters[1].error).toContain('cannot digest poison');
        expect(JSON.parse(letters[1].raw).payload.text).toBe('poison');
        expect(await metrics.registry.getSingleMetricAsString('engram_dlq_events_total')).toContain('reason="failed"} 1');

        cured = true;
        expect(await replayDeadLetters(log, topic, 'fragile')).toBe(2);
        await eventually(() => seen.includes('b'), 'the re-driven poison', timeoutMs);
        // The invalid event was re-driven too, and is dead-lettered again, visibly.
        await eventually(async () => (await readDeadLetters(log, topic)).length === 3, 'the invalid event dead-lettered again', timeoutMs);
        // A second replay re-drives only that new letter: the replay group remembers the others.
        expect(await replayDeadLetters(log, topic, 'fragile')).toBe(1);
        expect(seen.filter((id) => id === 'b')).toEqual(['b']);
      },
      testTimeoutMs,
    );
  });
}
