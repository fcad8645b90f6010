import type { EngramEventType } from './events';
import { EnvelopeSchema, EVENT_SCHEMAS } from './event-schemas';
import { classJsonSchema, DRAFT_07, JsonSchema, SchemaClass, SchemaNaming, schemaName } from './json-schema';
import { SERVICE_DESCRIPTIONS, TOPIC_CATALOGUE, topicEvents } from './topic-catalogue';

/**
 * The contract of the log, generated: the JSON Schema of the envelope and of every event
 * (docs/events/*.schema.json) and the AsyncAPI 3 document of every topic (docs/asyncapi.json),
 * both from the class-validator schemas `parseEvent` checks every consumed event with.
 * `engram asyncapi` writes them; a unit spec fails when the committed files differ.
 */

const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EngramEventType[];

/** The payload class of an event gets `Payload` after its name; a nested class is named as itself. */
function naming(ref: (name: string) => string): SchemaNaming {
  const payloads = new Set<SchemaClass>(Object.values(EVENT_SCHEMAS).map((s) => s.payload));
  return { name: (schema) => (payloads.has(schema) ? `${schemaName(schema)}Payload` : schemaName(schema)), ref };
}

/** Every schema a set of classes needs, nested ones included, by name, in a stable order. */
function definitionsOf(roots: readonly SchemaClass[], names: SchemaNaming): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const pending = [...roots];
  const done = new Set<SchemaClass>();
  while (pending.length > 0) {
    const schema = pending.shift()!;
    if (done.has(schema)) continue;
    done.add(schema);
    const nested = new Set<SchemaClass>();
    out[names.name(schema)] = classJsonSchema(schema, names, nested);
    pending.push(...nested);
  }
  return out;
}

function envelopeSchema(names: SchemaNaming): JsonSchema {
  return {
    ...classJsonSchema(EnvelopeSchema, names),
    description:
      'Every event travels in this envelope, JSON-encoded, keyed `tenantId:userId`. `eventId` is deterministic where the event is derived (a turn: from tenant, user and turnId), so a replayed or re-sent event is applied once.',
  };
}

/** One event's schema: the envelope with its `type`, its `schemaVersion` range and its payload. */
function eventSchema(type: EngramEventType, names: SchemaNaming): JsonSchema {
  const { currentVersion, payload } = EVENT_SCHEMAS[type];
  const envelope = envelopeSchema(names) as { properties: Record<string, unknown>; required: string[] };
  return {
    title: type,
    description:
      currentVersion > 1
        ? `${type}, schema version ${currentVersion}. Write ${currentVersion}; versions 1 to ${currentVersion - 1} are still read (upcast when consumed).`
        : `${type}, schema version 1.`,
    type: 'object',
    properties: {
      ...envelope.properties,
      type: { const: type },
      schemaVersion: { type: 'integer', minimum: 1, maximum: currentVersion },
      payload: { $ref: names.ref(names.name(payload)) },
    },
    required: envelope.required,
  };
}

export interface EventJsonSchemas {
  /** `envelope.schema.json` and `<EventType>.schema.json`, each self-contained. */
  readonly [file: string]: JsonSchema;
}

/** The standalone JSON Schema files: each one self-contained (its nested schemas under `definitions`). */
export function eventJsonSchemas(): EventJsonSchemas {
  const names = naming((name) => `#/definitions/${name}`);
  const files: Record<string, JsonSchema> = {
    'envelope.schema.json': { $schema: DRAFT_07, $id: 'envelope.schema.json', title: 'Envelope', ...envelopeSchema(names) },
  };
  for (const type of EVENT_TYPES) {
    files[`${type}.schema.json`] = {
      $schema: DRAFT_07,
      $id: `${type}.schema.json`,
      ...eventSchema(type, names),
      definitions: definitionsOf([EVENT_SCHEMAS[type].payload], names),
    };
  }
  return files;
}

const KAFKA_BINDING = '0.5.0';

const PARTITION_KEY: JsonSchema = {
  type: 'string',
  description: "`tenantId:userId` (the envelope's own values): one user's events stay ordered on one partition.",
  examples: ['default:laozhou'],
};

/** The AsyncAPI 3.0 document of every topic: channels, messages, who sends and who receives. */
export function asyncApiDocument(): Record<string, unknown> {
  const names = naming((name) => `#/components/schemas/${name}`);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const contract of TOPIC_CATALOGUE) {
    const channel = contract.topic.split('.')[1];
    channels[channel] = {
      address: contract.topic,
      title: contract.topic,
      description: `${contract.summary} Deployed as \`<ENGRAM_TOPIC_PREFIX>${contract.topic}\`; created at start with KAFKA_PARTITIONS partitions and KAFKA_REPLICATION_FACTOR replicas (defaults below).`,
      messages: Object.fromEntries(topicEvents(contract).map((type) => [type, { $ref: `#/components/messages/${type}` }])),
      bindings: { kafka: { partitions: 3, replicas: 1, bindingVersion: KAFKA_BINDING } },
    };
    for (const sender of contract.senders) {
      operations[`${sender.service}Sends${capitalised(channel)}`] = {
        action: 'send',
        channel: { $ref: `#/channels/${channel}` },
        title: `${sender.service} writes ${contract.topic}`,
        summary: sender.summary,
        description: SERVICE_DESCRIPTIONS[sender.service],
        messages: sender.events.map((type) => ({ $ref: `#/channels/${channel}/messages/${type}` })),
      };
    }
    for (const receiver of contract.receivers) {
      operations[`${receiver.group}Receives${capitalised(channel)}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${channel}` },
        title: `${receiver.service} reads ${contract.topic} (group ${receiver.group})`,
        summary: receiver.summary,
        description: `${SERVICE_DESCRIPTIONS[receiver.service]}. Consumer group \`<ENGRAM_TOPIC_PREFIX>${receiver.group}\`; an event that fails its schema goes to \`<topic>.dlq\`.`,
        bindings: { kafka: { groupId: { type: 'string', enum: [receiver.group] }, bindingVersion: KAFKA_BINDING } },
      };
    }
  }
  const messages = Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        name: type,
        title: type,
        contentType: 'application/json',
        payload: { $ref: `#/components/schemas/${type}` },
        bindings: { kafka: { key: PARTITION_KEY, bindingVersion: KAFKA_BINDING } },
      },
    ]),
  );
  const schemas: Record<string, unknown> = {
    Envelope: envelopeSchema(names),
    ...Object.fromEntries(EVENT_TYPES.map((type) => [type, eventSchema(type, names)])),
    ...definitionsOf([...new Set(Object.values(EVENT_SCHEMAS).map((s) => s.payload))], names),
  };
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'engram event log',
      // The contract's version, like the OpenAPI document's: topics carry theirs in their names (.v1).
      version: '1',
      description:
        "The topics engram's stages communicate through. Applications with their own Kafka producers may write `TurnRecorded` to `memory.turns.v1` directly (the SDK's `KafkaTurnProducer` does it right: keyed, idempotent, PII masked); every other topic is written by engram. Generated from the schemas the stages validate with (`npm run asyncapi`).",
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:9092',
        protocol: 'kafka',
        description: 'The single local broker deploy/local/kafka.sh (or docker-compose.yml) starts; KAFKA_BROKERS elsewhere.',
        bindings: { kafka: { bindingVersion: KAFKA_BINDING } },
      },
    },
    channels,
    operations,
    components: { messages, schemas },
  };
}

function capitalised(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}

/**
 * The committed contract files, by path under docs/: what `engram asyncapi` writes and what the
 * unit spec compares the committed ones with.
 */
export function contractFiles(): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files: Record<string, string> = { 'asyncapi.json': json(asyncApiDocument()) };
  for (const [file, schema] of Object.entries(eventJsonSchemas())) files[`events/${file}`] = json(schema);
  return files;
}
