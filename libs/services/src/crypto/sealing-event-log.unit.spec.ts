import { eventAssociatedData, newDataKey, openText, sealText } from '@engram/domain';
import { SerialisedLogValue, serialiseLogValue } from '@engram/ports';
import { sealedEnvelopeJson } from './sealing-event-log';

describe('sealedEnvelopeJson', () => {
  it('is the JSON of the event with its payload sealed, whatever its fields hold', () => {
    const event = {
      eventId: 'e-"1"\n',
      type: 'TurnRecorded',
      schemaVersion: 2,
      tenantId: 'acme \\ "quoted"',
      userId: '老周\u2028',
      occurredAt: '2026-11-30T08:00:00.000Z',
      causationId: null,
      correlationId: 'e-"1"\n',
      payload: { text: '我对花生过敏' },
    };
    const key = newDataKey();
    const sealed = sealText(key, JSON.stringify(event.payload), eventAssociatedData(event.tenantId, event.userId, event.eventId));

    const json = sealedEnvelopeJson(event, sealed);

    expect(JSON.parse(json)).toEqual({ ...event, payload: sealed });
    expect(json).not.toContain('花生');
    expect(openText(key.key, JSON.parse(json).payload, eventAssociatedData(event.tenantId, event.userId, event.eventId))).toBe(
      JSON.stringify(event.payload),
    );
  });

  it('is stored as it is by the log adapters', () => {
    expect(serialiseLogValue(new SerialisedLogValue('{"a":1}'))).toBe('{"a":1}');
    expect(serialiseLogValue({ a: 1 })).toBe('{"a":1}');
  });
});
