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

/** The memory as engram knew it at `asOf`, active; null if engram did not hold it then. */
export function memoryAsOf(memory: MemoryRecord, asOf: Date | string): MemoryRecord | null {
  const t = typeof asOf === 'string' ? Date.parse(asOf) : asOf.getTime();
  if (!Number.isFinite(t) || Date.parse(memory.createdAt) > t) return null;
  const versions = versionsOf(memory);
  const index = versions.findIndex(
    (v) => Date.parse(v.recordedAt) <= t && (v.supersededAt === null || Date.parse(v.supersededAt) > t),
  );
  if (index < 0) return null;
  const known = versions[index];
  const isCurrent = index === versions.length - 1;
  return {
    ...memory,
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
