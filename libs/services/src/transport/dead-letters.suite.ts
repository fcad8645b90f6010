import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { deployedTopic, deterministicId, TurnRecorded } from '@engram/contracts';
import { DependencyUnavailableError, EventLog, lag } from '@engram/ports';
import { eventually } from '@engram/testing';
import { readDeadLetters, redriveDeadLetters, replayDeadLetters, waitingDeadLetters } from './dead-letters';
import { deadLetterTopic } from './dead-letter';
import { DependencyMonitor } from '../observability/dependency-monitor';
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
/** The outage case's own topic, so that the two stages never see each other's events. */
const OUTAGE_TOPIC = 'memory.screened.v1';
/** The automatic re-drive's own topic and stage (an app of its own, re-driving every 200 ms); no stage of the topology reads it, so its first handler here owns its letters. */
const REDRIVE_TOPIC = 'test.recovering.v1';

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
 * everything else keeps flowing, in order. An unavailable dependency is no
 * poison: the stage pauses, its events stay in its lag, nothing is
 * dead-lettered for it, and it resumes by itself once the dependency is back.
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

    /** Turn ids the waiting stage handled, in order; and how many deliveries it was handed. */
    const handled: string[] = [];
    let deliveries = 0;
    let embedderDown = true;

    /** A stage that needs the embedder for every turn, which is down until the test brings it back. */
    @StageController()
    class WaitingStage {
      @EventPattern({ topic: OUTAGE_TOPIC, group: 'waiting' })
      async handle(@Payload() batch: StageBatch): Promise<void> {
        deliveries++;
        if (embedderDown) throw new DependencyUnavailableError('embedder', 'POST …/v1/embeddings: ECONNREFUSED (gave up after 4 attempts)');
        for (const event of batch.events) if (event.type === 'TurnRecorded') handled.push(event.payload.turnId);
      }
    }

    @Module({ controllers: [FragileStage, WaitingStage] })
    class FragileModule {}

    let subject: DeadLetterSubject | undefined;
    let app: INestApplication | undefined;
    let topic: string;
    const metrics = new EngramMetrics();
    const monitor = new DependencyMonitor({ watched: ['embedder'], recheckMs: 1000, statusTimeoutMs: 3000 }, metrics);

    beforeAll(async () => {
      subject = await open();
      topic = deployedTopic(subject.topicPrefix, TOPIC);
      app = await NestFactory.create(FragileModule, { logger: false });
      app.connectMicroservice({
        strategy: new EventLogTransport(subject.log, { topicPrefix: subject.topicPrefix, attempts: 2, retryDelayMs: 1, metrics, monitor }),
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

    it(
      'pauses on an unavailable dependency: nothing dead-lettered but the invalid event (once), the events in its lag, resumed by itself',
      async () => {
        const log = subject!.log;
        const outageTopic = deployedTopic(subject!.topicPrefix, OUTAGE_TOPIC);
        const end = await log.append(outageTopic, [
          { key: 't:u', value: turn('d', 'I prefer tea') },
          { key: 't:u', value: { type: 'TurnRecorded', nonsense: true } },
          { key: 't:u', value: turn('e', 'I prefer coffee') },
        ]);
        // Delivered, failed, delivered again after the log's backoff: the stage waits, it does not give up.
        await eventually(() => deliveries >= 3, 'the batch delivered again while the embedder is down', timeoutMs);
        expect(handled).toEqual([]);
        expect(lag(end, await log.committedPosition(outageTopic, 'waiting'))).toBe(3);
        expect(await readDeadLetters(log, outageTopic)).toEqual([]);
        expect(monitor.down()).toEqual(['embedder']);
        expect(monitor.pausedStages().map((p) => [p.stage, p.dependency])).toEqual([['waiting', 'embedder']]);
        expect(await metrics.registry.getSingleMetricAsString('engram_stage_paused')).toContain('engram_stage_paused{stage="waiting"} 1');

        embedderDown = false;
        await eventually(() => handled.includes('e'), 'the stage resumed', timeoutMs);
        expect(handled).toEqual(['d', 'e']);
        await eventually(
          async () => lag(end, await log.committedPosition(outageTopic, 'waiting')) === 0,
          'the batch committed once it went through',
          timeoutMs,
        );
        // The invalid event was in every delivery of the batch, and is dead-lettered once, when the batch went through.
        const letters = await readDeadLetters(log, outageTopic);
        expect(letters.map((l) => [l.reason, l.stage])).toEqual([['invalid', 'waiting']]);
        expect(monitor.down()).toEqual([]);
        expect(monitor.pausedStages()).toEqual([]);
        expect(await metrics.registry.getSingleMetricAsString('engram_stage_paused')).toContain('engram_stage_paused{stage="waiting"} 0');
      },
      testTimeoutMs,
    );

    it(
      're-drives dead letters by itself once nothing is down: each event once, one that fails again waits for an operator',
      async () => {
        const log = subject!.log;
        const redriveTopic = deployedTopic(subject!.topicPrefix, REDRIVE_TOPIC);
        const digested: string[] = [];
        let sick = true;
        /** Cannot digest "poison" while sick (as if a dependency failed in a way nothing classified), nor "forever" ever. */
        @StageController()
        class RecoveringStage {
          @EventPattern({ topic: REDRIVE_TOPIC, group: 'recovering' })
          async handle(@Payload() batch: StageBatch): Promise<void> {
            for (const event of batch.events) {
              if (event.type !== 'TurnRecorded') continue;
              if ((event.payload.text === 'poison' && sick) || event.payload.text === 'forever') throw new Error('cannot digest it');
            }
            for (const event of batch.events) if (event.type === 'TurnRecorded') digested.push(event.payload.turnId);
          }
        }
        @Module({ controllers: [RecoveringStage] })
        class RecoveringModule {}
        const watcher = new DependencyMonitor({ watched: ['embedder'], recheckMs: 1000, statusTimeoutMs: 3000 }, new EngramMetrics());
        watcher.failed('embedder', new Error('ECONNREFUSED'));
        const recovering = await NestFactory.create(RecoveringModule, { logger: false });
        recovering.connectMicroservice({
          strategy: new EventLogTransport(log, {
            topicPrefix: subject!.topicPrefix,
            attempts: 2,
            retryDelayMs: 1,
            monitor: watcher,
            deadLetterRedriveMs: 200,
          }),
        });
        await recovering.startAllMicroservices();
        try {
          await log.append(redriveTopic, [
            { key: 't:u', value: turn('f', 'I prefer tea') },
            { key: 't:u', value: turn('p', 'poison') },
            { key: 't:u', value: turn('x', 'forever') },
            { key: 't:u', value: turn('g', 'I prefer coffee') },
          ]);
          await eventually(() => digested.includes('g'), 'the turns after the failing ones', timeoutMs);
          // Something is down: nothing is re-driven, the letters wait.
          await new Promise((resolve) => setTimeout(resolve, 600));
          expect((await readDeadLetters(log, redriveTopic)).map((l) => JSON.parse(l.raw).payload.turnId)).toEqual(['p', 'x']);
          expect(await waitingDeadLetters(log, redriveTopic)).toBe(2);

          // It is back: both letters are re-driven by themselves; "poison" goes through, "forever" fails again.
          sick = false;
          watcher.answered('embedder');
          await eventually(() => digested.includes('p'), 'the re-driven poison, digested', timeoutMs);
          await eventually(async () => (await readDeadLetters(log, redriveTopic)).length === 3, '"forever" dead-lettered again', timeoutMs);
          // Its second letter is held: never re-driven again by itself, counted for an operator.
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          expect((await readDeadLetters(log, redriveTopic)).map((l) => JSON.parse(l.raw).payload.turnId)).toEqual(['p', 'x', 'x']);
          expect(await waitingDeadLetters(log, redriveTopic)).toBe(1);
          expect(await redriveDeadLetters(log, redriveTopic)).toEqual({ redriven: 0, held: 1 });
          expect(digested).toEqual(['f', 'g', 'p']);
        } finally {
          await recovering.close();
        }
      },
      testTimeoutMs,
    );
  });
}
