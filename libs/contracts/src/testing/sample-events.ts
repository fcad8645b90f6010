/** One valid event of every type and kinds of wrong values, for specs that compare validators. */

const at = '2026-11-30T09:00:00.000Z';
export const envelope = (type: string, payload: object, schemaVersion = 1) => ({
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
export const item = {
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
  history: [
    { version: 1, value: '小周', content: '我叫小周', validFrom: at, validTo: at, recordedAt: at, supersededAt: at, sourceTurnIds: ['t0'] },
  ],
};

export const validEvents = [
  envelope('TurnRecorded', turn, 2),
  envelope('TurnRecorded', { sessionId: 's1', turnId: 't1', role: 'assistant', text: '' }, 1),
  envelope('UserForgotten', { requestedAt: at }),
  envelope('TurnScreened', {
    ...turn,
    verdict: 'accepted',
    reasons: ['cue:name'],
    signals: [],
    ephemeral: false,
    masked: ['PHONE'],
    screenerVersion: 's1',
  }),
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
  envelope('MemoryConfirmRequested', { memoryId: 'm1', requestedAt: at }),
  envelope('ProfileUpdateRequested', { attributes: [{ attribute: 'city', value: '杭州' }], requestedAt: at }),
  envelope('MemoryRetracted', { memory: { ...memory, status: 'retracted', statusReason: 'wrong' }, itemId: null }),
  envelope('MemoriesAccessed', { memoryIds: ['m1', 'm2'], accessedAt: at }),
];

export const WRONG: unknown[] = [
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
export function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [prefix, ...keys.flatMap((key) => paths((value as Record<string, unknown>)[key as never], [...prefix, key]))];
}

export function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  if (rest.length === 0 && by === undefined && !Array.isArray(copy)) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy;
}
