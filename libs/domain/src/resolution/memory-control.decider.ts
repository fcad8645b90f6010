import {
  causedBy,
  deterministicId,
  type ExtractedItem,
  type MemoriesExtracted,
  type MemoryConfirmRequested,
  type MemoryDecision,
  type MemoryRecord,
  type MemoryRetractionRequested,
  type MemoryRevertRequested,
  type MemoryVersion,
  newEvent,
  type ProfileUpdateRequested,
} from '@engram/contracts';
import { NOT_HELD } from '../extraction/constraint-values';
import { versionsOf } from '../recall/as-of';
import type { Decider } from '../decider';
import { episodesOnlyStating, ResolutionDecider, type ResolverState } from './resolution.decider';

/**
 * The application's control over single memories (docs/memory-model.md §12): retract one,
 * restore an earlier value as a new version, or confirm a value that contradicts an earlier one. A pure decider from (command, the user's memories)
 * to decisions; the resolver runs it in log order with the user's extractions, so nothing races
 * it, and its decisions replay like any other. A command that no longer applies (the memory is
 * gone, already retracted, the version unknown) decides nothing: the HTTP layer checked it when
 * the command was made, and a replay must decide the same.
 *
 * Profile facts the application knows for certain are not decided here: `profileExtraction`
 * turns them into extracted items, and the resolution decider treats them like facts said in
 * conversation (add, reinforce, supersede, with the old value kept), so a later "我搬到上海了"
 * and a later PUT speak of the same memory.
 */
export type MemoryControlCommand = MemoryRetractionRequested | MemoryRevertRequested | MemoryConfirmRequested;

function decide(command: MemoryControlCommand, state: ResolverState): MemoryDecision[] {
  const memory = state.get(command.payload.memoryId);
  // Insights are derived from other memories and re-derived when those change: not controlled directly.
  if (!memory || memory.tenantId !== command.tenantId || memory.userId !== command.userId || memory.kind === 'insight') return [];
  switch (command.type) {
    case 'MemoryRetractionRequested':
      return retract(command, memory, state);
    case 'MemoryRevertRequested':
      return revert(command, memory, state);
    case 'MemoryConfirmRequested':
      return confirm(command, memory);
  }
}

/** Over the resolver's state and evolved like every resolver decision. */
export const MemoryControlDecider = {
  initialState: ResolutionDecider.initialState,
  decide,
  evolve: ResolutionDecider.evolve,
} as const satisfies Decider<MemoryControlCommand, ResolverState, MemoryDecision>;

/** Which version a revert brings back, or why it cannot: the HTTP layer answers with this before any command is sent. */
export function revertTarget(
  memory: MemoryRecord,
  version: number,
): { target: MemoryVersion } | { error: 'unknown-version' | 'current-version' } {
  const target = versionsOf(memory).find((v) => v.version === version);
  if (!target) return { error: 'unknown-version' };
  if (target.version === memory.version && memory.status === 'active') return { error: 'current-version' };
  return { target };
}

function retract(command: MemoryRetractionRequested, memory: MemoryRecord, state: ResolverState): MemoryDecision[] {
  if (memory.status !== 'active') return [];
  const { requestedAt, reason } = command.payload;
  const retracted: MemoryRecord = {
    ...memory,
    status: 'retracted',
    ...(reason !== '' ? { statusReason: reason } : {}),
    validTo: requestedAt,
    revision: memory.revision + 1,
    updatedAt: command.recordedAt,
  };
  return [decision(command, 'MemoryRetracted', retracted), ...retireEpisodes(command, memory, state)];
}

/**
 * The earlier value comes back as a new version: the current value moves to history (closed at
 * the request's instant, world time), so the revert itself can be reverted and `asOf` still sees
 * what was current before it. A retracted memory reverted to its current version is restored.
 */
function revert(command: MemoryRevertRequested, memory: MemoryRecord, state: ResolverState): MemoryDecision[] {
  const chosen = revertTarget(memory, command.payload.version);
  if (!('target' in chosen)) return [];
  const { target } = chosen;
  const { requestedAt } = command.payload;
  const previous: MemoryVersion = {
    version: memory.version,
    value: memory.value,
    content: memory.content,
    validFrom: memory.validFrom,
    validTo: memory.validTo ?? requestedAt,
    recordedAt: memory.history[memory.history.length - 1]?.supersededAt ?? memory.createdAt,
    supersededAt: memory.status === 'active' ? command.recordedAt : memory.updatedAt,
    sourceTurnIds: memory.sourceTurnIds,
    ...(memory.sources ? { sources: memory.sources } : {}),
  };
  // The application chose the value: whatever it contradicted is settled.
  const { statusReason: _reason, conflict: _conflict, ...current } = memory;
  const restored: MemoryRecord = {
    ...current,
    value: target.value,
    content: target.content,
    sourceTurnIds: [...target.sourceTurnIds],
    status: 'active',
    version: memory.version + 1,
    revision: memory.revision + 1,
    mentionCount: 1,
    validFrom: requestedAt,
    validTo: null,
    updatedAt: command.recordedAt,
    lastSeenAt: requestedAt,
    history: [...memory.history, previous],
  };
  const leaving = memory.status === 'active' ? retireEpisodes(command, memory, state, new Set(target.sourceTurnIds)) : [];
  return [decision(command, 'MemorySuperseded', restored), ...leaving];
}

/**
 * The user confirms the current value of a memory that contradicts an earlier one ("我可以用青霉素"
 * after the allergy): the conflict note goes, as when the user says it again, and a denied constraint
 * is no longer pinned (what it denies constrains nothing). An active memory with no conflict: nothing.
 */
function confirm(command: MemoryConfirmRequested, memory: MemoryRecord): MemoryDecision[] {
  if (memory.status !== 'active' || !memory.conflict) return [];
  const { conflict: _settled, ...settled } = memory;
  const confirmed: MemoryRecord = {
    ...settled,
    pinned: memory.value === NOT_HELD ? false : memory.pinned,
    revision: memory.revision + 1,
    updatedAt: command.recordedAt,
  };
  return [decision(command, 'MemoryReinforced', confirmed)];
}

/**
 * The value left behind must not come back through the turn that said it (the same rule as a
 * correction, docs/memory-model.md §3): episodes whose turns all stated it, and nothing else
 * still true, are retracted with it.
 */
function retireEpisodes(
  command: MemoryControlCommand,
  before: MemoryRecord,
  state: ResolverState,
  keep?: ReadonlySet<string>,
): MemoryDecision[] {
  return episodesOnlyStating(before, state, keep).map((episode) =>
    decision(command, 'MemoryRetracted', {
      ...episode,
      status: 'retracted',
      validTo: command.payload.requestedAt,
      revision: episode.revision + 1,
      updatedAt: command.recordedAt,
    }),
  );
}

function decision(command: MemoryControlCommand, type: MemoryDecision['type'], memory: MemoryRecord): MemoryDecision {
  return newEvent<MemoryDecision>({
    ...causedBy(command),
    eventId: deterministicId('decision', command.eventId, memory.memoryId),
    type,
    occurredAt: command.payload.requestedAt,
    recordedAt: command.recordedAt,
    payload: { memory, itemId: null },
  });
}

// ---- profile facts ------------------------------------------------------------------------

/** The extractor version profile facts carry: they were not extracted, the application stated them. */
export const PROFILE_SOURCE = 'profile-api-1';

/**
 * "The application knows for certain": one profile item per attribute, about the user, at full
 * confidence, as of the request. The merge key is `user/<attribute>`, the key conversation facts
 * use, so the stated value supersedes what was said and is superseded by what is said later.
 */
export function profileExtraction(command: ProfileUpdateRequested): MemoriesExtracted {
  const { attributes, requestedAt } = command.payload;
  const items: ExtractedItem[] = attributes.map(({ attribute, value }, index) => ({
    itemId: deterministicId(command.eventId, index),
    kind: 'profile',
    subject: 'user',
    attribute,
    value,
    content: `${attribute.replace(/[_:.-]+/g, ' ')}: ${value}`,
    entities: [],
    confidence: 1,
    importance: 0.9,
    ephemeral: false,
    operation: 'assert',
    validFrom: requestedAt,
    sourceTurnIds: [],
    extractorVersion: PROFILE_SOURCE,
  }));
  return newEvent<MemoriesExtracted>({
    eventId: command.eventId,
    type: 'MemoriesExtracted',
    tenantId: command.tenantId,
    userId: command.userId,
    occurredAt: command.occurredAt,
    recordedAt: command.recordedAt,
    causationId: command.causationId,
    correlationId: command.correlationId,
    payload: { sessionId: 'profile', turnId: command.eventId, items, extractorVersion: PROFILE_SOURCE },
  });
}
