import 'reflect-metadata';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { deterministicId, TurnRecorded } from '@engram/contracts';
import { openSqliteDatabase, SqliteEventLog } from '@engram/adapters-sqlite';
import { EventLog } from '@engram/ports';
import { eventually } from '@engram/testing';
import { readDeadLetters, replayDeadLetters } from '../cli/dlq';
import { EngramMetrics } from '../observability/metrics';
import { EventLogTransport, StageBatch } from './event-log.transport';
import { StageController } from './rpc-passthrough.filter';

const TOPIC = 'memory.turns.v1';

function turn(turnId: string, text: string): TurnRecorded {
  const eventId = deterministicId('turn', 't', 'u', turnId);
  return {
    eventId, type: 'TurnRecorded', schemaVersion: 1, tenantId: 't', userId: 'u',
    occurredAt: '2026-11-30T08:00:00.000Z', recordedAt: '2026-11-30T08:00:00.000Z', causationId: null, correlationId: eventId,
    payload: { sessionId: 's', turnId, role: 'user', text },
  };
}

/** A stage that cannot handle turns saying "poison" — until it is cured. */
const seen: string[] = [];
let cured = false;

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

/**
 * Dead letters on the real embedded log: invalid and poison events leave the
 * partition, land in `<topic>.dlq` with their bytes and reason, and can be
 * re-driven; everything else keeps flowing.
 */
describe('EventLogTransport dead letters', () => {
  let app: INestApplication;
  let log: SqliteEventLog;
  const metrics = new EngramMetrics();

  beforeAll(async () => {
    log = new SqliteEventLog(openSqliteDatabase(':memory:'), { pollIntervalMs: 5 });
    app = await NestFactory.create(FragileModule, { logger: false });
    app
      .connectMicroservice({ strategy: new EventLogTransport(log as EventLog, { attempts: 2, retryDelayMs: 1, metrics }) });
    await app.startAllMicroservices();
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await log.close();
  });

  it('dead-letters invalid and poison events, keeps order for the rest, and re-drives them', async () => {
    await log.append(TOPIC, [
      { key: 't:u', value: turn('a', 'I prefer tea') },
      { key: 't:u', value: { type: 'TurnRecorded', nonsense: true } },
      { key: 't:u', value: turn('b', 'poison') },
      { key: 't:u', value: turn('c', 'I prefer coffee') },
    ]);
    await eventually(() => seen.includes('c'), 'the turn after the poison');
    expect(seen).toEqual(['a', 'c']);

    const letters = await readDeadLetters(log, TOPIC);
    expect(letters.map((l) => [l.reason, l.offset, l.stage])).toEqual([
      ['invalid', 1, 'fragile'],
      ['failed', 2, 'fragile'],
    ]);
    expect(letters[0].error).toContain('payload');
    expect(letters[1].error).toContain('cannot digest poison');
    expect(JSON.parse(letters[1].raw).payload.text).toBe('poison');
    expect(await metrics.registry.getSingleMetricAsString('engram_dlq_events_total')).toContain('reason="failed"} 1');

    cured = true;
    expect(await replayDeadLetters(log, TOPIC, 'fragile')).toBe(2);
    await eventually(() => seen.includes('b'), 'the re-driven poison');
    // The invalid event was re-driven too, and is dead-lettered again, visibly.
    await eventually(async () => (await readDeadLetters(log, TOPIC)).length === 3, 'the invalid event dead-lettered again');
    // A second replay re-drives only that new letter: the replay group remembers the others.
    expect(await replayDeadLetters(log, TOPIC, 'fragile')).toBe(1);
    expect(seen.filter((id) => id === 'b')).toEqual(['b']);
  });
});
