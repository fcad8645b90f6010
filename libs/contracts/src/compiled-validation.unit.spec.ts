import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { compiledCheck, isCompiled } from './compiled-validation';
import { EnvelopeSchema, EVENT_SCHEMAS, InvalidEventError, parseEvent } from './event-schemas';

/**
 * The compiled check must agree with class-validator: it may never accept what class-validator
 * rejects (that would let an invalid event through), and it should reject only what class-validator
 * rejects (else parseEvent silently falls back to the slow path). Checked on one valid event of every
 * type and on every field of each replaced by wrong values of every kind.
 */

const at = '2026-11-30T09:00:00.000Z';
const envelope = (type: string, payload: object, schemaVersion = 1) => ({
  eventId: 'e1',
  type,
  schemaVersion,
  tenantId: 'default',
  userId: 'u1',
  occurredAt: at,
  recordedAt: at,
  causationId: null,
  correlationId: 'c1',
  payload,
});
const turn = { sessionId: 's1', turnId: 't1', role: 'user', speaker: 'Lao Zhou', text: '我叫老周', channel: 'web' };
const item = {
  itemId: 'i1',
  kind: 'profile',
  subject: 'user',
  attribute: 'name',
  value: '老周',
  content: '我叫老周',
  entities: ['老周'],
  confidence: 0.9,
  importance: 1,
  ephemeral: false,
  operation: 'assert',
  validFrom: at,
  sourceTurnIds: ['t1'],
  extractorVersion: 'rules-2',
};
const memory = {
  tenantId: 'default',
  userId: 'u1',
  memoryId: 'm1',
  mergeKey: 'user/name',
  kind: 'profile',
  subject: 'user',
  attribute: 'name',
  value: '老周',
  content: '我叫老周',
  entities: ['老周'],
  confidence: 0.9,
  importance: 1,
  ephemeral: false,
  pinned: true,
  status: 'active',
  version: 2,
  revision: 3,
  mentionCount: 2,
  sourceTurnIds: ['t1', 't2'],
  appliedItemIds: ['i1'],
  validFrom: at,
  validTo: null,
  createdAt: at,
  updatedAt: at,
  lastSeenAt: at,
  history: [{ version: 1, value: '小周', content: '我叫小周', validFrom: at, validTo: at, recordedAt: at, supersededAt: at, sourceTurnIds: ['t0'] }],
};

const validEvents = [
  envelope('TurnRecorded', turn, 2),
  envelope('TurnRecorded', { sessionId: 's1', turnId: 't1', role: 'assistant', text: '' }, 1),
  envelope('UserForgotten', { requestedAt: at }),
  envelope('TurnScreened', { ...turn, verdict: 'accepted', reasons: ['cue:name'], signals: [], ephemeral: false, masked: ['PHONE'], screenerVersion: 's1' }),
  envelope('MemoriesExtracted', { sessionId: 's1', turnId: 't1', items: [item], extractorVersion: 'rules-2' }),
  envelope('MemoryAdded', { memory, itemId: 'i1' }),
  envelope('MemorySuperseded', { memory: { ...memory, history: [] }, itemId: null }),
  envelope('ForgettingRequested', {
    requestedAt: at,
    policy: { ephemeralTtlDays: 7, archiveAfterDays: 90, archiveConfidence: 0.5 },
    lastAccess: [{ memoryId: 'm1', at }],
  }),
  envelope('MemoriesImportRequested', { importId: 'x1', memories: [memory] }),
  envelope('MemoryRetractionRequested', { memoryId: 'm1', reason: '不再适用', requestedAt: at }),
  envelope('MemoryRevertRequested', { memoryId: 'm1', version: 1, requestedAt: at }),
  envelope('ProfileUpdateRequested', { attributes: [{ attribute: 'city', value: '杭州' }], requestedAt: at }),
  envelope('MemoryRetracted', { memory: { ...memory, status: 'retracted', statusReason: 'wrong' }, itemId: null }),
  envelope('MemoriesAccessed', { memoryIds: ['m1', 'm2'], accessedAt: at }),
];

const WRONG: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'x',
  '1',
  'x'.repeat(257),
  '2026-11-31',
  '2026-11-30T09:00:00Z',
  '2026-11-30 09:00',
  0,
  -1,
  0.5,
  1.5,
  7,
  NaN,
  Infinity,
  true,
  false,
  [],
  [''],
  ['x'],
  [1],
  [null],
  [{}],
  {},
  { a: 1 },
];

/** Every path to a field in the value (nested objects and array elements included). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [prefix, ...keys.flatMap((key) => paths((value as Record<string, unknown>)[key as never], [...prefix, key]))];
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  if (rest.length === 0 && by === undefined && !Array.isArray(copy)) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy;
}

/** The reference: class-validator as parseEvent used it before the compiled check. */
function classValidatorAccepts(schema: new () => object, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return validateSync(plainToInstance(schema, value) as object, { forbidUnknownValues: true }).length === 0;
}

function payloadSchemaOf(event: { type: string }): new () => object {
  return EVENT_SCHEMAS[event.type as keyof typeof EVENT_SCHEMAS].payload;
}

describe('compiled event validation', () => {
  it('compiles the envelope and every payload schema (none falls back to class-validator)', () => {
    for (const schema of [EnvelopeSchema, ...Object.values(EVENT_SCHEMAS).map((s) => s.payload)]) {
      expect([schema.name, isCompiled(schema)]).toEqual([schema.name, true]);
    }
  });

  it('accepts every valid event, as class-validator does', () => {
    for (const event of validEvents) {
      expect(compiledCheck(EnvelopeSchema)(event)).toBe(true);
      expect(compiledCheck(payloadSchemaOf(event))(event.payload)).toBe(true);
      expect(classValidatorAccepts(payloadSchemaOf(event), event.payload)).toBe(true);
    }
  });

  it('agrees with class-validator on every field of every event set to every kind of wrong value', () => {
    let rejected = 0;
    const disagreements: string[] = [];
    const stricter: string[] = [];
    for (const event of validEvents) {
      for (const path of paths(event).filter((p) => p.length > 0)) {
        for (const by of WRONG) {
          const mutant = replaced(event, path, by) as { type: string; payload: unknown };
          const inPayload = path[0] === 'payload' && path.length > 1;
          const schema = inPayload ? payloadSchemaOf(event) : EnvelopeSchema;
          const value = inPayload ? mutant.payload : mutant;
          const fast = compiledCheck(schema)(value);
          const slow = classValidatorAccepts(schema, value);
          const what = `${event.type} ${path.join('.')} = ${JSON.stringify(by)}`;
          if (fast && !slow) disagreements.push(`${what}: compiled accepts, class-validator rejects`);
          if (!fast && slow) {
            // class-validator skips an undefined element of a nested array and validates an array
            // element as a list of nested objects; the compiled check refuses both, so parseEvent
            // asks class-validator, which accepts them as it always did.
            stricter.push(what);
            expect(() => parseEvent(mutant)).not.toThrow();
          }
          if (!slow) rejected++;
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(stricter.every((what) => / = (undefined|\[\])$/.test(what) && /\.\d+ = /.test(what))).toBe(true);
    expect(rejected).toBeGreaterThan(1000); // the mutations really do produce invalid events
  });

  it("still rejects an invalid event with class-validator's field-naming error", () => {
    const bad = envelope('MemoriesExtracted', { sessionId: 's1', turnId: 't1', items: [{ ...item, confidence: 2 }], extractorVersion: 'rules-2' });
    expect(() => parseEvent(bad)).toThrow(InvalidEventError);
    try {
      parseEvent(bad);
    } catch (error) {
      expect((error as InvalidEventError).fields).toEqual(['payload.items.0.confidence: confidence must not be greater than 1']);
    }
    expect(() => parseEvent({ ...validEvents[0], occurredAt: 'yesterday' })).toThrow(/occurredAt: occurredAt must be a valid ISO 8601 date string/);
  });

  it('returns the upcast event for a valid one', () => {
    const v1 = parseEvent(validEvents[1]);
    expect(v1.schemaVersion).toBe(2);
    expect(v1.payload).toEqual(validEvents[1].payload);
  });
});
