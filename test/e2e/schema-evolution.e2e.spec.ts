import { deterministicId, parseEvent, partitionKey, Topics } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { DataKeyRing, DEFAULT_TENANT, openStoredEvent, readDeadLetters } from '@engram/services';
import { eventually } from '@engram/testing';
import { EngramHarness, startEngram } from '../support/engram-harness';

/** A turn as a producer of the given schema version would have written it straight to the log. */
function turnEvent(version: number, userId: string, turnId: string, text: string, extra: Record<string, unknown> = {}) {
  const eventId = deterministicId('turn', DEFAULT_TENANT, userId, turnId);
  return {
    eventId,
    type: 'TurnRecorded',
    schemaVersion: version,
    tenantId: DEFAULT_TENANT,
    userId,
    occurredAt: '2026-11-30T08:00:00.000Z',
    recordedAt: '2026-11-30T08:00:00.000Z',
    causationId: null,
    correlationId: eventId,
    payload: { sessionId: 's1', turnId, role: 'user', text, ...extra },
  };
}

describe('schema evolution: TurnRecorded v1 beside v2', () => {
  let engram: EngramHarness;
  afterEach(async () => engram?.destroy());

  it('upcasts a v1 turn at the read boundary and keeps v2 fields', () => {
    const v1 = parseEvent(turnEvent(1, 'u1', 't1', 'I prefer tea'));
    expect(v1.schemaVersion).toBe(2);
    expect(v1.payload).not.toHaveProperty('channel');
    const v2 = parseEvent(turnEvent(2, 'u1', 't2', 'I prefer tea', { channel: 'wechat' }));
    expect(v2.payload).toMatchObject({ channel: 'wechat' });
    expect(() => parseEvent(turnEvent(3, 'u1', 't3', 'I prefer tea'))).toThrow(/newer than this build understands/);
  });

  it('replays a log of mixed versions: v1 and v2 turns are remembered, a future v3 is dead-lettered', async () => {
    engram = await startEngram();
    const log = engram.app.get<EventLog>(EventLog);
    const key = partitionKey(DEFAULT_TENANT, 'mixed');
    await log.append(Topics.turns, [
      { key, value: turnEvent(1, 'mixed', 'old', '我喜欢喝乌龙茶') },
      { key, value: turnEvent(2, 'mixed', 'new', 'I prefer Vim for Go work', { channel: 'app' }) },
      { key, value: turnEvent(3, 'mixed', 'future', 'I prefer Emacs for Lisp work') },
    ]);
    const posted = await engram
      .http()
      .post('/v1/turns')
      .send({
        userId: 'mixed',
        sessionId: 's1',
        turns: [
          { turnId: 'api', role: 'user', text: 'I prefer Kotlin for Android work', occurredAt: '2026-11-30T08:01:00Z', channel: 'web' },
        ],
      })
      .expect(202);

    const recall = async (query: string) =>
      JSON.stringify(
        (await engram.http().post('/v1/recall').send({ userId: 'mixed', query, after: posted.body.position }).expect(200)).body,
      );
    expect(await recall('乌龙茶')).toContain('乌龙茶');
    expect(await recall('Vim Go')).toContain('Vim');
    expect(await recall('Kotlin Android')).toContain('Kotlin');
    expect(await recall('Emacs Lisp')).not.toContain('Emacs');

    await eventually(async () => (await readDeadLetters(log, Topics.turns)).length === 1, 'the v3 turn dead-lettered');
    const [letter] = await readDeadLetters(log, Topics.turns);
    expect(letter).toMatchObject({ reason: 'invalid', stage: 'filter' });
    expect(letter.error).toContain('schemaVersion 3');
    // The letter keeps the bytes as stored: sealed (docs/security.md), opened with the user's key.
    expect(letter.raw).not.toContain('Emacs');
    expect(
      ((await openStoredEvent(engram.app.get(DataKeyRing), JSON.parse(letter.raw))) as { payload: { turnId: string } }).payload.turnId,
    ).toBe('future');
  });

  it('rejects a channel that is not a slug, naming the field', async () => {
    engram = await startEngram();
    const response = await engram
      .http()
      .post('/v1/turns')
      .send({
        userId: 'u1',
        sessionId: 's1',
        turns: [{ turnId: 't1', role: 'user', text: 'I prefer tea', occurredAt: '2026-11-30T08:00:00Z', channel: 'We Chat!' }],
      })
      .expect(400);
    expect(response.body.fields).toContain('turns.0.channel');
  });
});
