import type { MemoryRecord, MemoryVersion } from '@engram/contracts';

/**
 * "As engram knew it at instant t" (transaction time), from a memory's own history: every value
 * it held carries when engram learned it (`recordedAt`) and when engram learned it was no longer
 * current (`supersededAt`). The value known at t is the version with recordedAt ≤ t and
 * (supersededAt null or > t).
 *
 * - A memory created after t did not exist yet.
 * - The current version of a memory that is now retracted, archived or expired ends when that
 *   decision was recorded (`updatedAt`: no later decision touches an inactive memory without
 *   superseding it), so at an earlier t it is still active.
 * - Reinforcement does not make versions: confidence, importance and mention counts are today's.
 */

/** Every value a memory has held, oldest first, the current one last (with its end if inactive). */
export function versionsOf(memory: MemoryRecord): MemoryVersion[] {
  const past = [...memory.history];
  const current: MemoryVersion = {
    version: memory.version,
    value: memory.value,
    content: memory.content,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
    recordedAt: past[past.length - 1]?.supersededAt ?? memory.createdAt,
    supersededAt: memory.status === 'active' ? null : memory.updatedAt,
    sourceTurnIds: memory.sourceTurnIds,
    ...(memory.sources ? { sources: memory.sources } : {}),
  };
  return [...past, current];
}

/**
 * The record a view starts from: an earlier version contradicted nothing yet, so a conflict note
 * (today's, like the mention counts) belongs to the current version's view only.
 */
function current(memory: MemoryRecord, isCurrent: boolean): MemoryRecord {
  if (isCurrent || !memory.conflict) return memory;
  const { conflict: _later, ...earlier } = memory;
  return earlier;
}

/** The memory as engram knew it at `asOf`, active; null if engram did not hold it then. */
export function memoryAsOf(memory: MemoryRecord, asOf: Date | string): MemoryRecord | null {
  const t = typeof asOf === 'string' ? Date.parse(asOf) : asOf.getTime();
  if (!Number.isFinite(t) || Date.parse(memory.createdAt) > t) return null;
  const versions = versionsOf(memory);
  const index = versions.findIndex((v) => Date.parse(v.recordedAt) <= t && (v.supersededAt === null || Date.parse(v.supersededAt) > t));
  if (index < 0) return null;
  const known = versions[index];
  const isCurrent = index === versions.length - 1;
  return {
    ...current(memory, isCurrent),
    status: 'active',
    value: known.value,
    content: known.content,
    version: known.version,
    validFrom: known.validFrom,
    // A successor recorded after t was unknown at t: as far as engram knew, the value still held.
    validTo: isCurrent && memory.status === 'active' ? memory.validTo : null,
    sourceTurnIds: [...known.sourceTurnIds],
    ...(known.sources ? { sources: [...known.sources] } : {}), // an insight's sources as they were then
    // Later reinforcements were not known at t either.
    lastSeenAt: isCurrent && Date.parse(memory.lastSeenAt) <= t ? memory.lastSeenAt : known.validFrom,
    updatedAt: isCurrent && Date.parse(memory.updatedAt) <= t ? memory.updatedAt : known.recordedAt,
    history: versions.slice(0, index),
  };
}

/** The memories engram held at `asOf`, each as it knew it then. */
export function memoriesAsOf(memories: Iterable<MemoryRecord>, asOf: Date | string): MemoryRecord[] {
  const known: MemoryRecord[] = [];
  for (const memory of memories) {
    const view = memoryAsOf(memory, asOf);
    if (view) known.push(view);
  }
  return known;
}

/**
 * "What was true at instant t according to the conversation" (world time): the version whose
 * `validFrom ≤ t < validTo`, as engram knows it now (or as it knew it at an `asOf`, when given the
 * views `memoriesAsOf` returns). So logs backfilled today still answer "what was the budget on
 * 3 October", which `asOf` cannot (engram learned all of it today).
 *
 * - A memory first said after t was not true yet.
 * - A retraction ends the current version at its instant (`validTo`), so before it the memory
 *   held; the episodes a correction retired end where the correction begins.
 * - Archived and expired memories are left out at every instant: forgetting is engram's policy,
 *   not something the conversation said, and it is never undone by looking back.
 * - When versions overlap (a backfilled correction said before the value it corrects), the newest
 *   version that covers t wins.
 */
export function memoryValidAt(memory: MemoryRecord, validAt: Date | string): MemoryRecord | null {
  const t = typeof validAt === 'string' ? Date.parse(validAt) : validAt.getTime();
  if (!Number.isFinite(t) || (memory.status !== 'active' && memory.status !== 'retracted')) return null;
  const versions = versionsOf(memory);
  let index = -1;
  for (let i = versions.length - 1; i >= 0 && index < 0; i--) {
    const v = versions[i];
    if (Date.parse(v.validFrom) <= t && (v.validTo === null || Date.parse(v.validTo) > t)) index = i;
  }
  if (index < 0) return null;
  const valid = versions[index];
  const isCurrent = index === versions.length - 1;
  return {
    ...current(memory, isCurrent),
    status: 'active',
    value: valid.value,
    content: valid.content,
    version: valid.version,
    validFrom: valid.validFrom,
    validTo: valid.validTo,
    sourceTurnIds: [...valid.sourceTurnIds],
    ...(valid.sources ? { sources: [...valid.sources] } : {}),
    // Mentions after t had not been made yet.
    lastSeenAt: isCurrent && Date.parse(memory.lastSeenAt) <= t ? memory.lastSeenAt : valid.validFrom,
    history: versions.slice(0, index),
  };
}

/** The memories that held at `validAt` (world time), each with the value it had then. */
export function memoriesValidAt(memories: Iterable<MemoryRecord>, validAt: Date | string): MemoryRecord[] {
  const valid: MemoryRecord[] = [];
  for (const memory of memories) {
    const view = memoryValidAt(memory, validAt);
    if (view) valid.push(view);
  }
  return valid;
}
