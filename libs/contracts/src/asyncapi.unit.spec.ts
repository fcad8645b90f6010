import 'reflect-metadata';
import { Parser } from '@asyncapi/parser';
import Ajv, { ValidateFunction } from 'ajv';
import { IsString, ValidateIf } from 'class-validator';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { asyncApiDocument, contractFiles, eventJsonSchemas } from './asyncapi';
import { EnvelopeSchema, EVENT_SCHEMAS, parseEvent } from './event-schemas';
import { classJsonSchema, schemaName } from './json-schema';
import { TOPIC_CATALOGUE, topicEvents } from './topic-catalogue';
import { ALL_TOPICS } from './topics';
import { paths, replaced, validEvents, WRONG } from './testing/sample-events';

/**
 * The log's published contract (docs/asyncapi.json, docs/events/*.schema.json): generated from the
 * class-validator schemas, committed, valid AsyncAPI 3, and as strict as the check the stages run.
 */

const docs = path.join(__dirname, '../../../docs');

/** RFC 3339 date-time, which the schemas publish for every instant (ajv ships no formats). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

function eventValidators(): Record<string, ValidateFunction> {
  const ajv = new Ajv({ strict: true, allErrors: true });
  ajv.addFormat('date-time', (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
  const schemas = eventJsonSchemas();
  return Object.fromEntries(Object.entries(schemas).map(([file, schema]) => [file.replace('.schema.json', ''), ajv.compile(schema)]));
}

/** What parseEvent (class-validator, as the stages run it) says of a value. */
function engramAccepts(value: unknown): boolean {
  try {
    parseEvent(value);
    return true;
  } catch {
    return false;
  }
}

describe('the log contract (AsyncAPI document and event JSON Schemas)', () => {
  it('is committed as generated: regenerate with `npm run asyncapi` after changing an event schema or a topic', () => {
    const files = contractFiles();
    for (const [file, text] of Object.entries(files)) {
      expect({ file, text: fs.readFileSync(path.join(docs, file), 'utf8') }).toEqual({ file, text });
    }
    const committed = fs.readdirSync(path.join(docs, 'events')).map((f) => `events/${f}`);
    expect(committed.sort()).toEqual(
      Object.keys(files)
        .filter((f) => f.startsWith('events/'))
        .sort(),
    );
  });

  it('is a valid AsyncAPI 3.0 document with a channel per topic, a message per event and the Kafka key', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(asyncApiDocument()));
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document!.version()).toBe('3.0.0');
    const channels = document!.channels().all();
    expect(channels.map((c) => c.address()).sort()).toEqual([...ALL_TOPICS].sort());
    for (const contract of TOPIC_CATALOGUE) {
      const channel = channels.find((c) => c.address() === contract.topic)!;
      expect(
        channel
          .messages()
          .all()
          .map((m) => m.name())
          .sort(),
      ).toEqual(topicEvents(contract).sort());
      const receivers = channel
        .operations()
        .all()
        .filter((o) => o.action() === 'receive');
      expect(receivers.map((o) => o.bindings().get('kafka')?.value().groupId.enum[0]).sort()).toEqual(
        contract.receivers.map((r) => r.group).sort(),
      );
      expect(
        channel
          .operations()
          .all()
          .filter((o) => o.action() === 'send').length,
      ).toBe(contract.senders.length);
    }
    const messages = document!.components().messages().all();
    expect(messages.map((m) => m.name()).sort()).toEqual(Object.keys(EVENT_SCHEMAS).sort());
    for (const message of messages) {
      expect(message.bindings().get('kafka')?.value().key.description).toContain('tenantId:userId');
      expect(message.payload()!.properties()!.type.const()).toBe(message.name());
    }
    expect(document!.servers().get('local')!.protocol()).toBe('kafka');
  });

  it('every topic carries only events engram knows, and every event travels somewhere', () => {
    const carried = new Set(TOPIC_CATALOGUE.flatMap(topicEvents));
    expect([...carried].sort()).toEqual(Object.keys(EVENT_SCHEMAS).sort());
    expect(TOPIC_CATALOGUE.map((c) => c.topic).sort()).toEqual([...ALL_TOPICS].sort());
  });

  it('accepts a valid event of every type and rejects a malformed one, naming the field', () => {
    const validate = eventValidators();
    for (const event of validEvents) {
      const check = validate[event.type];
      expect({ type: event.type, ok: check(event), errors: check.errors }).toEqual({ type: event.type, ok: true, errors: null });
      expect(validate.envelope(event)).toBe(true);
    }
    const turn = validEvents[0];
    const malformed = { ...turn, payload: { ...turn.payload, role: 'robot', text: 42 } };
    expect(validate.TurnRecorded(malformed)).toBe(false);
    expect(validate.TurnRecorded.errors!.map((e) => e.instancePath).sort()).toEqual(['/payload/role', '/payload/text']);
    expect(validate.TurnRecorded({ ...turn, schemaVersion: 3 })).toBe(false);
    expect(validate.TurnRecorded({ ...turn, type: 'TurnScreened' })).toBe(false);
    const { userId: _dropped, ...keyless } = turn;
    expect(validate.envelope(keyless)).toBe(false);
    expect(validate.envelope.errors![0].params).toEqual({ missingProperty: 'userId' });
  });

  it('agrees with parseEvent on every field of every event set to every kind of wrong value (as JSON, as the log carries it)', () => {
    const validate = eventValidators();
    const looser: string[] = [];
    const stricter: string[] = [];
    let rejected = 0;
    for (const event of validEvents) {
      for (const at of paths(event).filter((p) => p.length > 0)) {
        for (const by of WRONG) {
          const mutant = JSON.parse(JSON.stringify(replaced(event, at, by))) as { type: string };
          const byEngram = engramAccepts(mutant);
          const check = validate[mutant.type];
          const bySchema = check ? check(mutant) : false;
          const what = `${event.type} ${at.join('.')} = ${JSON.stringify(by)}`;
          if (bySchema && !byEngram) looser.push(what);
          if (byEngram && !bySchema) stricter.push(what);
          if (!byEngram) rejected++;
        }
      }
    }
    // Never accepts what engram rejects: an event valid by the published schema is never dead-lettered.
    expect(looser).toEqual([]);
    // Stricter only where documented: an instant that is ISO 8601 but not an RFC 3339 date-time, and
    // an array in place of a nested object in an array (class-validator reads it as a list of them).
    expect(stricter.filter((what) => !/ = "2026-11-30 09:00"$/.test(what) && !/\.\d+ = \[\]$/.test(what))).toEqual([]);
    expect(stricter.length).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(1000); // the mutations really do produce invalid events
  });
});

describe('classJsonSchema (JSON Schema from class-validator metadata)', () => {
  const naming = { name: schemaName, ref: (name: string) => `#/definitions/${name}` };

  it('derives required fields, types, bounds, enums and nullability from the decorators', () => {
    const envelope = classJsonSchema(EnvelopeSchema, naming) as { properties: Record<string, unknown>; required: string[] };
    expect(envelope.required).not.toContain('causationId');
    expect(envelope.required).toContain('correlationId');
    expect(envelope.properties.causationId).toEqual({ type: ['string', 'null'], maxLength: 256 });
    expect(envelope.properties.schemaVersion).toEqual({ type: 'integer', minimum: 1 });
    expect(envelope.properties.occurredAt).toEqual({ type: 'string', format: 'date-time' });
    expect(envelope.properties.eventId).toEqual({ type: 'string', minLength: 1, maxLength: 256 });
    const extracted = classJsonSchema(EVENT_SCHEMAS.MemoriesExtracted.payload, naming) as { properties: Record<string, unknown> };
    expect(extracted.properties.items).toEqual({ type: 'array', items: { $ref: '#/definitions/ExtractedItem' }, maxItems: 100 });
  });

  it('refuses a decorator it cannot express rather than publish a looser schema', () => {
    class Conditional {
      @ValidateIf((o: { kind?: string }) => o.kind === 'x') @IsString() value!: string;
    }
    expect(() => classJsonSchema(Conditional, naming)).toThrow(
      /Conditional.value: a conditional validation other than @IsOptional\(\) is not modelled/,
    );
    class Undecorated {}
    expect(() => classJsonSchema(Undecorated, naming)).toThrow(/no class-validator decorators/);
  });
});
