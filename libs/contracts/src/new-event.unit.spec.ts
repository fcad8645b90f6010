import 'reflect-metadata';
import { parseEvent } from './event-schemas';
import type { MemoriesAccessed, TurnRecorded, TurnScreened } from './events';
import { causedBy, newEvent } from './new-event';

describe('newEvent', () => {
  const at = '2026-11-30T08:00:00.000Z';
  const turn = newEvent<TurnRecorded>({
    eventId: 'e-turn',
    type: 'TurnRecorded',
    tenantId: 'acme',
    userId: 'u-1',
    occurredAt: at,
    recordedAt: at,
    payload: { sessionId: 's-1', turnId: 't-1', role: 'user', text: '我喜欢用 VS Code' },
  });

  it("given an event from outside, then it writes the type's current schema version, no cause, and its own correlation", () => {
    expect(turn).toEqual({
      eventId: 'e-turn',
      type: 'TurnRecorded',
      schemaVersion: 2,
      tenantId: 'acme',
      userId: 'u-1',
      occurredAt: at,
      recordedAt: at,
      causationId: null,
      correlationId: 'e-turn',
      payload: { sessionId: 's-1', turnId: 't-1', role: 'user', text: '我喜欢用 VS Code' },
    });
    expect(parseEvent(turn)).toEqual(turn);
  });

  it('given a cause, then the event carries its user and correlation and names it as the cause', () => {
    const screened = newEvent<TurnScreened>({
      ...causedBy(turn),
      eventId: 'e-screened',
      type: 'TurnScreened',
      occurredAt: at,
      recordedAt: at,
      payload: { ...turn.payload, verdict: 'accepted', reasons: [], signals: [], ephemeral: false, masked: [], screenerVersion: 'test' },
    });
    expect(screened).toMatchObject({ schemaVersion: 1, tenantId: 'acme', userId: 'u-1', causationId: 'e-turn', correlationId: 'e-turn' });
    expect(parseEvent(screened)).toEqual(screened);
  });

  it('given an explicit correlation, then it is kept', () => {
    const accessed = newEvent<MemoriesAccessed>({
      eventId: 'e-access',
      type: 'MemoriesAccessed',
      tenantId: 'acme',
      userId: 'u-1',
      occurredAt: at,
      recordedAt: at,
      correlationId: 'request-7',
      payload: { memoryIds: ['m-1'], accessedAt: at },
    });
    expect(accessed).toMatchObject({ causationId: null, correlationId: 'request-7' });
  });
});
