import {
  deterministicId,
  type ExtractedItem,
  type MemoriesExtracted,
  type MemoryAdded,
  type MemoryRecord,
  newEvent,
  type TurnRecorded,
  type TurnRole,
  type TurnScreened,
} from '@engram/contracts';
import type { ExtractedItemDraft } from '../extraction/extraction.strategy';
import { defaultScreeningConfig } from '../screening/screening.config';
import { screenTurn } from '../screening/screening.decider';

/** Small builders for domain specs: realistic events with only the interesting fields spelled out. */

export const TENANT = 'acme';
export const USER = 'u-1';

export function turnRecorded(
  text: string,
  options: { role?: TurnRole; turn?: string; at?: string; session?: string; speaker?: string } = {},
): TurnRecorded {
  const turnId = options.turn ?? `turn-${text.length}`;
  return {
    eventId: deterministicId('turn', turnId),
    type: 'TurnRecorded',
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: options.at ?? '2026-11-30T08:00:00.000Z',
    recordedAt: options.at ?? '2026-11-30T08:00:00.000Z',
    causationId: null,
    correlationId: `corr-${turnId}`,
    payload: {
      sessionId: options.session ?? 's-1',
      turnId,
      role: options.role ?? 'user',
      ...(options.speaker ? { speaker: options.speaker } : {}),
      text,
    },
  };
}

export function turnScreened(
  text: string,
  options: {
    role?: TurnRole;
    verdict?: 'accepted' | 'rejected';
    ephemeral?: boolean;
    turn?: string;
    at?: string;
    signals?: string[];
    session?: string;
    speaker?: string;
  } = {},
): TurnScreened {
  const recorded = turnRecorded(text, options);
  // The signals the real filter finds in the text, unless a test says otherwise.
  const screened = screenTurn({ role: options.role ?? 'user', text }, defaultScreeningConfig);
  return {
    ...recorded,
    eventId: deterministicId('screened', recorded.eventId, 'test'),
    type: 'TurnScreened',
    causationId: recorded.eventId,
    payload: {
      ...recorded.payload,
      verdict: options.verdict ?? 'accepted',
      reasons: screened.reasons,
      signals: options.signals ?? screened.signals,
      ephemeral: options.ephemeral ?? false,
      masked: [],
      screenerVersion: 'test',
    },
  };
}

let extractionCounter = 0;

/** A MemoriesExtracted command carrying the given drafts (ids derived from a unique event id). */
export function extracted(drafts: readonly Partial<ExtractedItemDraft>[], options: { eventId?: string } = {}): MemoriesExtracted {
  const eventId = options.eventId ?? deterministicId('extracted-test', ++extractionCounter);
  const items: ExtractedItem[] = drafts.map((d, index) => ({
    ...draft(d),
    itemId: deterministicId(eventId, index),
    extractorVersion: 'test',
  }));
  return {
    eventId,
    type: 'MemoriesExtracted',
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: items[0]?.validFrom ?? '2026-11-30T08:00:00.000Z',
    recordedAt: items[0]?.validFrom ?? '2026-11-30T08:00:00.000Z',
    causationId: null,
    correlationId: `corr-${eventId}`,
    payload: { sessionId: 's-1', turnId: items[0]?.sourceTurnIds[0] ?? 't', items, extractorVersion: 'test' },
  };
}

export function draft(overrides: Partial<ExtractedItemDraft> = {}): ExtractedItemDraft {
  return {
    kind: 'preference',
    subject: 'user',
    attribute: 'editor',
    value: 'VS Code',
    content: '我喜欢用 VS Code',
    entities: ['VS Code'],
    confidence: 0.8,
    importance: 0.6,
    ephemeral: false,
    operation: 'assert',
    validFrom: '2026-11-30T08:00:00.000Z',
    sourceTurnIds: ['turn-1'],
    ...overrides,
  };
}

export function memory(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  const mergeKey = overrides.mergeKey ?? `${overrides.subject ?? 'user'}/${overrides.attribute ?? 'editor'}`;
  return {
    tenantId: TENANT,
    userId: USER,
    memoryId: deterministicId('memory', TENANT, USER, mergeKey),
    mergeKey,
    kind: 'preference',
    subject: 'user',
    attribute: 'editor',
    value: 'VS Code',
    content: '我喜欢用 VS Code',
    entities: ['VS Code'],
    confidence: 0.8,
    importance: 0.6,
    ephemeral: false,
    pinned: false,
    status: 'active',
    version: 1,
    revision: 1,
    mentionCount: 1,
    sourceTurnIds: ['turn-1'],
    appliedItemIds: [],
    validFrom: '2026-11-30T08:00:00.000Z',
    validTo: null,
    createdAt: '2026-11-30T08:00:00.000Z',
    updatedAt: '2026-11-30T08:00:00.000Z',
    lastSeenAt: '2026-11-30T08:00:00.000Z',
    history: [],
    ...overrides,
  };
}

/** The event that put a memory into a user's state as it is: the history a decider spec is `given`. */
export function memoryAdded(memory: MemoryRecord): MemoryAdded {
  return newEvent<MemoryAdded>({
    eventId: deterministicId('added-test', memory.memoryId, memory.revision),
    type: 'MemoryAdded',
    tenantId: memory.tenantId,
    userId: memory.userId,
    occurredAt: memory.validFrom,
    recordedAt: memory.updatedAt,
    causationId: null,
    correlationId: `corr-${memory.memoryId}`,
    payload: { memory, itemId: null },
  });
}
