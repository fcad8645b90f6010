import { deterministicId, parseEvent } from '@engram/contracts';
import { KafkaTurnProducer, MAX_EVENT_TEXT, turnKey, turnRecordedEvents, TurnValidationError } from './kafka';
import { EngramValidationError } from './errors';

/** What KafkaTurnProducer writes, without Kafka (its infra spec sends it to real Kafka and the pipeline). */
const batch = (turns: unknown[], overrides: Record<string, unknown> = {}) =>
  ({
    tenantId: 'acme',
    userId: 'laozhou',
    sessionId: 's1',
    turns,
    recordedAt: new Date('2026-11-30T09:00:00Z'),
    ...overrides,
  }) as Parameters<typeof turnRecordedEvents>[0];

function refusal(run: () => unknown): TurnValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof TurnValidationError) return error;
    throw error;
  }
  throw new Error('expected a TurnValidationError');
}

describe('turnRecordedEvents (what KafkaTurnProducer sends)', () => {
  it('builds TurnRecorded v2 events that engram parses, with the deterministic id and the partition key', () => {
    const [event] = turnRecordedEvents(
      batch([{ turnId: 't1', role: 'user', text: '我的手机号是13812345678', occurredAt: '2026-11-30T16:00:00+08:00' }]),
    );
    expect(parseEvent(event)).toEqual(event);
    expect(event).toMatchObject({
      eventId: deterministicId('turn', 'acme', 'laozhou', 't1'),
      correlationId: event.eventId,
      causationId: null,
      schemaVersion: 2,
      occurredAt: '2026-11-30T08:00:00.000Z',
      recordedAt: '2026-11-30T09:00:00.000Z',
      payload: { sessionId: 's1', turnId: 't1', role: 'user', text: '我的手机号是[PHONE]' },
    });
    expect(turnKey('acme', 'laozhou')).toBe('acme:laozhou');
  });

  it('defaults turnId to a fresh UUID and occurredAt to the send time', () => {
    const [a, b] = turnRecordedEvents(
      batch([
        { role: 'user', text: 'one' },
        { role: 'user', text: 'two' },
      ]),
    );
    expect(a.payload.turnId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.payload.turnId).not.toBe(b.payload.turnId);
    expect(a.occurredAt).toBe('2026-11-30T09:00:00.000Z');
  });

  it('names every bad field at once and sends nothing', () => {
    const error = refusal(() =>
      turnRecordedEvents(
        batch(
          [
            { role: 'robot', text: '' },
            { role: 'user', text: 'ok', channel: 'Web' },
          ],
          { userId: 'two words' },
        ),
      ),
    );
    expect(error).toBeInstanceOf(EngramValidationError);
    expect(error.fields).toEqual(['userId', 'turns.0.role', 'turns.0.text', 'turns.1.channel']);
    expect(error.message).toMatch(/^invalid turns: userId must be 1-128 characters/);
    expect(refusal(() => turnRecordedEvents(batch([]))).fields).toEqual(['turns']);
    expect(refusal(() => turnRecordedEvents(batch([{ role: 'user', text: 'x' }], { tenantId: '' }))).fields).toEqual(['tenantId']);
  });

  it("refuses a text longer than the event schema's bound once masked (the filter would dead-letter it)", () => {
    const words = 'word '.repeat(MAX_EVENT_TEXT / 5);
    expect(turnRecordedEvents(batch([{ role: 'user', text: words }]))).toHaveLength(1);
    expect(refusal(() => turnRecordedEvents(batch([{ role: 'user', text: `${words}!` }]))).fields).toEqual(['turns.0.text']);
    // Masking can lengthen a text: an e-mail address shorter than its placeholder.
    const emails = 'a@b.cn '.repeat(Math.floor(MAX_EVENT_TEXT / 7));
    expect(emails.length).toBeLessThanOrEqual(MAX_EVENT_TEXT);
    expect(refusal(() => turnRecordedEvents(batch([{ role: 'user', text: emails }]))).message).toContain('after masking');
  });
});

describe('KafkaTurnProducer configuration', () => {
  it('needs brokers (or a kafkajs client) and a valid tenant, checked when it is made', () => {
    expect(refusal(() => new KafkaTurnProducer({ tenantId: 'acme' })).fields).toEqual(['brokers']);
    expect(refusal(() => new KafkaTurnProducer({ tenantId: 'a b', brokers: ['127.0.0.1:9092'] })).fields).toEqual(['tenantId']);
    expect(new KafkaTurnProducer({ tenantId: 'acme', brokers: ['127.0.0.1:9092'] })).toBeInstanceOf(KafkaTurnProducer);
  });
});
