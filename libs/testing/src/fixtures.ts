import { randomBytes } from 'node:crypto';
import type { MemoryRecord } from '@engram/contracts';
import type { LogMessage, SearchDocument, SessionTurn } from '@engram/ports';

/** A short random suffix, so tests sharing one backend never see each other's topics, groups or tenants. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** `prefix-<random>`: a fresh tenant, user, topic or group name. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${uniqueSuffix()}`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true (or a value that is not false/undefined); throws with `what` on timeout. */
export async function eventually(probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

const T0 = '2026-01-05T09:00:00.000Z';

export function aMemoryRecord(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  const subject = overrides.subject ?? 'user';
  const attribute = overrides.attribute ?? 'editor';
  const mergeKey = overrides.mergeKey ?? `${subject}/${attribute}`;
  const createdAt = overrides.createdAt ?? T0;
  return {
    tenantId: 'tenant-a',
    userId: 'user-1',
    memoryId: `mem-${mergeKey}`,
    mergeKey,
    kind: 'preference',
    subject,
    attribute,
    value: 'neovim',
    content: 'I prefer neovim as my editor',
    entities: ['neovim'],
    confidence: 0.8,
    importance: 0.5,
    ephemeral: false,
    pinned: false,
    status: 'active',
    version: 1,
    revision: 1,
    mentionCount: 1,
    sourceTurnIds: ['turn-1'],
    appliedItemIds: ['item-1'],
    validFrom: createdAt,
    validTo: null,
    createdAt,
    updatedAt: createdAt,
    lastSeenAt: createdAt,
    history: [],
    ...overrides,
  };
}

export function aSessionTurn(overrides: Partial<SessionTurn> = {}): SessionTurn {
  return {
    tenantId: 'tenant-a',
    userId: 'user-1',
    sessionId: 'session-1',
    turnId: uniqueName('turn'),
    role: 'user',
    text: 'hello',
    occurredAt: T0,
    ...overrides,
  };
}

export function aSearchDocument(overrides: Partial<SearchDocument> = {}): SearchDocument {
  return {
    tenantId: 'tenant-a',
    userId: 'user-1',
    memoryId: uniqueName('mem'),
    revision: 1,
    kind: 'fact',
    status: 'active',
    content: 'we use postgres as our database',
    terms: ['postgres', 'database'],
    entities: ['postgres'],
    vector: [1, 0, 0, 0],
    updatedAt: T0,
    ...overrides,
  };
}

export function aLogMessage(key: string, value: unknown): LogMessage {
  return { key, value };
}

/** ISO time `minutes` after a fixed instant: ordered, readable timestamps for tests. */
export function minutesAfterStart(minutes: number): string {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}
