// Memory kinds and recall filter fields are declared once, in libs/contracts (`MEMORY_KINDS`,
// `RECALL_FILTER_FIELDS`). Every surface that offers them derives from that declaration or is held to
// it here, so adding a kind or a filter field fails this spec (or the compiler) at every place that
// must change, each named: the HTTP DTO, the OpenAPI document, the SDK, the CLI, the MCP server, the inspector.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  MEMORY_KINDS,
  RECALL_FILTER_FIELD_NAMES,
  RECALL_FILTER_FIELDS,
  recallFilterDeclaration,
  type MemoryKind,
  type RecallFilterField,
  type RecallFilterShapes,
} from '@engram/contracts';
import { RecallDto } from '@engram/services/recall/recall.dto';
import { createEngramMcpServer } from '@engram/services/mcp/engram-mcp-server';
import { EngramClient, type RecallOptions } from '../../libs/client/src/engram-client';
import { buildCli } from '../../apps/engram/cli/engram-cli';
import { MEMORY_KINDS as INSPECTOR_KINDS } from '../../apps/inspector/src/types';

const ROOT = join(__dirname, '..', '..');
const openapi = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as {
  components: {
    schemas: Record<string, { properties?: Record<string, { description?: string; enum?: unknown[]; items?: { enum?: unknown[] } }> }>;
  };
};

// The SDK's types are generated from the OpenAPI document: the compiler names a filter field or a
// kind it lacks (`npm run openapi` regenerates both).
type MissingFromSdk = Exclude<RecallFilterField, keyof RecallOptions>;
const sdkHasEveryFilter: [MissingFromSdk] extends [never] ? true : MissingFromSdk = true;
type SdkKind = NonNullable<RecallOptions['kinds']>[number];
type KindDrift = Exclude<SdkKind, MemoryKind> | Exclude<MemoryKind, SdkKind>;
const sdkHasEveryKind: [KindDrift] extends [never] ? true : KindDrift = true;

/** A value of each shape that the request must accept, and one it must refuse. */
const SAMPLES: { readonly [S in keyof RecallFilterShapes]: { valid: RecallFilterShapes[S]; invalid: unknown } } = {
  kinds: { valid: ['preference'], invalid: ['not-a-kind'] },
  ids: { valid: ['s1'], invalid: ['has space'] },
  instant: { valid: '2026-11-30T09:00:00Z', invalid: '2026-11-30T09:00:00' },
};

/**
 * Filter fields the inspector's recall form does not offer (it debugs ranking: kinds narrow what it
 * shows; the other filters are for applications). A new field is either added to the form
 * (apps/inspector/src/recall.ts, an input named after it) or listed here.
 */
const NOT_IN_INSPECTOR_FORM: readonly RecallFilterField[] = ['sessions', 'from', 'to'];

async function mcpRecallSchema(): Promise<{ properties: Record<string, { type?: string; items?: { enum?: unknown[] } }> }> {
  const server = createEngramMcpServer(new EngramClient({ url: 'http://127.0.0.1:9' })); // listing tools calls nothing
  const client = new Client({ name: 'declared-lists', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const { tools } = await client.listTools();
    return tools.find((tool) => tool.name === 'recall')!.inputSchema as never;
  } finally {
    await client.close();
    await server.close();
  }
}

describe('memory kinds, declared once (MEMORY_KINDS)', () => {
  it('the SDK types every kind (a compile-time check)', () => {
    expect([sdkHasEveryFilter, sdkHasEveryKind]).toEqual([true, true]);
  });

  it('the inspector (its own program, so a copy: apps/inspector/src/types.ts) lists the same kinds', () => {
    expect([...INSPECTOR_KINDS]).toEqual([...MEMORY_KINDS]);
  });

  it('the OpenAPI document offers the same kinds wherever a kind is named', () => {
    const enums = Object.entries(openapi.components.schemas).flatMap(([schema, { properties = {} }]) =>
      Object.entries(properties)
        .filter(([name]) => name === 'kind' || name === 'kinds')
        .map(([name, property]) => ({ at: `${schema}.${name}`, kinds: property.enum ?? property.items?.enum })),
    );
    expect(enums.length).toBeGreaterThan(3);
    expect(enums.filter(({ kinds }) => JSON.stringify(kinds) !== JSON.stringify(MEMORY_KINDS))).toEqual([]);
  });

  it("the MCP recall tool's kinds are the declared kinds", async () => {
    expect((await mcpRecallSchema()).properties.kinds.items?.enum).toEqual([...MEMORY_KINDS]);
  });
});

describe('recall filter fields, declared once (RECALL_FILTER_FIELDS)', () => {
  it.each(RECALL_FILTER_FIELD_NAMES)('POST /v1/recall validates %s by its declared shape (RecallDto)', (field) => {
    const sample = SAMPLES[recallFilterDeclaration(field).shape];
    const errors = (value: unknown) =>
      validateSync(plainToInstance(RecallDto, { userId: 'u1', query: 'q', [field]: value }), {
        stopAtFirstError: true,
        whitelist: true,
        forbidNonWhitelisted: true,
      }).map((error) => error.property);
    expect(errors(sample.valid)).toEqual([]);
    expect(errors(sample.invalid)).toEqual([field]);
    expect(errors(null)).toEqual([field]); // optional means absent, not null
  });

  it.each(RECALL_FILTER_FIELD_NAMES)(
    'the OpenAPI document (docs/openapi.json, npm run openapi) declares %s as the contracts do',
    (field) => {
      expect(openapi.components.schemas.RecallDto.properties?.[field]?.description).toBe(RECALL_FILTER_FIELDS[field].description);
    },
  );

  it('`engram recall` takes every filter field as an option (apps/engram/cli/engram-cli.ts)', () => {
    const recall = buildCli({ server: () => ({}), rebuild: () => ({}) }).commands.find((command) => command.name() === 'recall')!;
    const options = new Map(recall.options.map((option) => [option.attributeName(), option.description]));
    expect(RECALL_FILTER_FIELD_NAMES.map((field) => [field, options.get(field)])).toEqual(
      RECALL_FILTER_FIELD_NAMES.map((field) => [field, RECALL_FILTER_FIELDS[field].summary]),
    );
  });

  it('the MCP recall tool takes every filter field (libs/services/src/mcp/engram-mcp-server.ts)', async () => {
    const { properties } = await mcpRecallSchema();
    expect(RECALL_FILTER_FIELD_NAMES.filter((field) => !properties[field])).toEqual([]);
  });

  it("the inspector's recall form offers each filter field or says it does not (apps/inspector/src/recall.ts)", () => {
    const form = readFileSync(join(ROOT, 'apps/inspector/src/recall.ts'), 'utf8');
    const offered = RECALL_FILTER_FIELD_NAMES.filter((field) => form.includes(`name: '${field}'`));
    expect(offered.filter((field) => NOT_IN_INSPECTOR_FORM.includes(field))).toEqual([]);
    expect(RECALL_FILTER_FIELD_NAMES.filter((field) => !offered.includes(field) && !NOT_IN_INSPECTOR_FORM.includes(field))).toEqual([]);
    expect(NOT_IN_INSPECTOR_FORM.filter((field) => !RECALL_FILTER_FIELD_NAMES.includes(field))).toEqual([]);
  });
});
