import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { isISO8601, validateSync } from 'class-validator';
import { compiledCheck, isCompiled, isPlainInstant } from './compiled-validation';
import { EnvelopeSchema, EVENT_SCHEMAS, InvalidEventError, parseEvent } from './event-schemas';
import { envelope, item, paths, replaced, validEvents, WRONG } from './testing/sample-events';

/**
 * The compiled check must agree with class-validator: it may never accept what class-validator
 * rejects (that would let an invalid event through), and it should reject only what class-validator
 * rejects (else parseEvent silently falls back to the slow path). Checked on one valid event of every
 * type and on every field of each replaced by wrong values of every kind.
 */

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
    const bad = envelope('MemoriesExtracted', {
      sessionId: 's1',
      turnId: 't1',
      items: [{ ...item, confidence: 2 }],
      extractorVersion: 'rules-2',
    });
    expect(() => parseEvent(bad)).toThrow(InvalidEventError);
    try {
      parseEvent(bad);
    } catch (error) {
      expect((error as InvalidEventError).fields).toEqual(['payload.items.0.confidence: confidence must not be greater than 1']);
    }
    expect(() => parseEvent({ ...validEvents[0], occurredAt: 'yesterday' })).toThrow(
      /occurredAt: occurredAt must be a valid ISO 8601 date string/,
    );
  });

  it('returns the upcast event for a valid one', () => {
    const v1 = parseEvent(validEvents[1]);
    expect(v1.schemaVersion).toBe(2);
    expect(v1.payload).toEqual(validEvents[1].payload);
  });

  it('given an instant as toISOString writes it, then the arithmetic check accepts only what the validator accepts, strict or not', () => {
    const accepted: string[] = [];
    const wrong: string[] = [];
    for (const year of [0, 1, 99, 999, 1000, 1582, 1600, 1700, 1900, 1970, 2000, 2023, 2024, 2100, 2400, 9999])
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++)
          for (const time of ['00:00:00', '23:59:59', '24:00:00', '12:60:00', '12:00:60', '1:00:00'])
            for (const fraction of ['', '.000', '.999', '.5', '.1234']) {
              const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T${time}${fraction}Z`;
              if (!isPlainInstant(text)) continue;
              accepted.push(text);
              if (!isISO8601(text, { strict: true }) || !isISO8601(text)) wrong.push(text);
            }
    expect(wrong).toEqual([]);
    expect(accepted).toContain('2024-02-29T23:59:59.999Z');
    expect(accepted).not.toContain('2023-02-29T00:00:00Z');
    expect(accepted).not.toContain('2100-02-29T00:00:00Z');
    expect(accepted.length).toBeGreaterThan(10_000);
    expect(isPlainInstant(new Date(1.7e12).toISOString())).toBe(true);
    expect(() => parseEvent({ ...validEvents[0], occurredAt: '2023-02-29T00:00:00.000Z' })).toThrow(/occurredAt/);
  });
});
