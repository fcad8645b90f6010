// The memory records a decision carries: a new memory, one said again (reinforced), one with a new
// value (superseded: the old value to history), and whether a memory is pinned.
import { deterministicId, type ExtractedItem, type MemoriesExtracted, type MemoryRecord, type MemoryVersion } from '@engram/contracts';
import { AVOIDED, NOT_HELD } from '../extraction/constraint-values';
import { DEFAULT_PINNED_ATTRIBUTES, familyOf, isSensitive, PINNED_FAMILIES, type ResolutionOptions } from './resolution.state';

/**
 * A memory's id is derived from its merge key and the item that created it:
 * deterministic on replay, yet new when a forgotten user comes back, so no
 * external version (Elasticsearch tombstones) of the forgotten memory can
 * shadow the new one.
 */
export function memoryIdOf(tenantId: string, userId: string, mergeKey: string, createdByItemId: string): string {
  return deterministicId('memory', tenantId, userId, mergeKey, createdByItemId);
}

export function added(command: MemoriesExtracted, item: ExtractedItem, mergeKey: string, options: ResolutionOptions): MemoryRecord {
  return {
    tenantId: command.tenantId,
    userId: command.userId,
    memoryId: memoryIdOf(command.tenantId, command.userId, mergeKey, item.itemId),
    mergeKey,
    kind: item.kind,
    subject: item.subject,
    attribute: item.attribute,
    value: item.value,
    content: item.content,
    entities: [...item.entities],
    confidence: item.confidence,
    importance: item.importance,
    ephemeral: item.ephemeral,
    pinned: isPinned(item, options),
    ...(isSensitive(item.attribute) ? { sensitive: true } : {}),
    status: 'active',
    version: 1,
    revision: 1,
    mentionCount: 1,
    sourceTurnIds: [...item.sourceTurnIds],
    ...speakerAndKeys(item),
    appliedItemIds: [item.itemId],
    validFrom: item.validFrom,
    validTo: null,
    ...(item.expiresAt ? { expiresAt: item.expiresAt } : {}),
    createdAt: options.recordedAt,
    updatedAt: options.recordedAt,
    lastSeenAt: item.validFrom,
    history: [],
  };
}

/** Who said it and what else it is found by, only when the item has them (older records have neither). */
function speakerAndKeys(item: ExtractedItem): Pick<MemoryRecord, 'speaker' | 'keys'> {
  return { ...(item.speaker ? { speaker: item.speaker } : {}), ...(item.keys?.length ? { keys: [...item.keys] } : {}) };
}

/**
 * Said again: more certain, seen more recently; the value and its version stay. Said again, a value
 * that contradicted an earlier one is confirmed: its conflict note goes, and it is pinned as its own
 * value would be (a contradiction keeps the constraint's pin while it is open, resolution.conflicts.ts).
 */
export function reinforce(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): MemoryRecord {
  // Said again without a time scope, it holds from now on; said again with one, until the later end.
  const { expiresAt: _expiry, conflict, ...lasting } = existing;
  const expiresAt = item.expiresAt && existing.expiresAt ? later(existing.expiresAt, item.expiresAt) : undefined;
  return {
    ...lasting,
    ...(conflict ? { pinned: isPinned({ ...existing, operation: 'assert' }, options) } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    confidence: round(1 - (1 - existing.confidence) * 0.8),
    importance: Math.max(existing.importance, item.importance),
    entities: union(existing.entities, item.entities),
    ...(item.keys?.length ? { keys: union(existing.keys ?? [], item.keys) } : {}),
    mentionCount: existing.mentionCount + 1,
    sourceTurnIds: union(existing.sourceTurnIds, item.sourceTurnIds),
    appliedItemIds: [...existing.appliedItemIds, item.itemId],
    revision: existing.revision + 1,
    updatedAt: options.recordedAt,
    lastSeenAt: later(existing.lastSeenAt, item.validFrom),
  };
}

/**
 * A new value: the old one moves to history, closed at the new value's validFrom (world time)
 * and stamped with when engram learned it was no longer current (supersededAt). A retracted
 * memory asserted again comes back active this way. Mentions and confidence restart: they
 * measure the current value, not the attribute.
 */
export function supersede(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): MemoryRecord {
  const previous: MemoryVersion = {
    version: existing.version,
    value: existing.value,
    content: existing.content,
    validFrom: existing.validFrom,
    validTo: existing.validTo ?? item.validFrom,
    recordedAt: existing.history[existing.history.length - 1]?.supersededAt ?? existing.createdAt,
    supersededAt: existing.status === 'active' ? options.recordedAt : existing.updatedAt,
    sourceTurnIds: existing.sourceTurnIds,
  };
  // The new value's speaker and keys replace the old one's (it may have had some the new lacks).
  // ...and a reason it was retracted, or a contradiction it stood in, no longer holds once a new value is said.
  const { speaker: _speaker, keys: _keys, statusReason: _reason, expiresAt: _expiry, conflict: _conflict, ...current } = existing;
  return {
    ...current,
    kind: item.kind,
    value: item.value,
    content: item.content,
    entities: [...item.entities],
    confidence: item.confidence,
    importance: item.importance,
    ephemeral: item.ephemeral,
    pinned: isPinned(item, options),
    ...(isSensitive(item.attribute) ? { sensitive: true } : {}),
    status: 'active',
    version: existing.version + 1,
    revision: existing.revision + 1,
    mentionCount: 1,
    sourceTurnIds: [...item.sourceTurnIds],
    ...speakerAndKeys(item),
    appliedItemIds: [...existing.appliedItemIds, item.itemId],
    validFrom: item.validFrom,
    validTo: null,
    ...(item.expiresAt ? { expiresAt: item.expiresAt } : {}),
    updatedAt: options.recordedAt,
    lastSeenAt: item.validFrom,
    history: [...existing.history, previous],
  };
}

/**
 * The user's pinned attributes, every procedure (rules for the assistant hold whatever the question),
 * and the standing constraints of anyone the user speaks of (PINNED_FAMILIES), sensitive ones unless
 * the deployment keeps them unpinned.
 */
function isPinned(
  item: Pick<ExtractedItem, 'kind' | 'subject' | 'attribute' | 'value' | 'operation'>,
  options: ResolutionOptions,
): boolean {
  const pinnedAttributes = options.pinnedAttributes ?? DEFAULT_PINNED_ATTRIBUTES;
  if (item.operation !== 'assert') return false;
  // An attribute, or a family of them ("family" pins `family:daughter`, `family:kitten`).
  const named = pinnedAttributes.includes(item.attribute) || pinnedAttributes.includes(familyOf(item.attribute));
  if (item.kind === 'procedure' || (item.subject === 'user' && named)) return true;
  if (item.subject === 'assistant') return false;
  // "我可以用青霉素" constrains nothing (pinned only while it contradicts a constraint, resolution.conflicts.ts).
  if (item.value === NOT_HELD) return false;
  // A food or drink someone does not take ("不吃香菜", "I don't drink") constrains every meal.
  if (item.kind === 'preference' && item.value === AVOIDED) return true;
  if (item.kind !== 'profile' || !PINNED_FAMILIES.includes(familyOf(item.attribute))) return false;
  return !isSensitive(item.attribute) || (options.sensitiveFacts ?? 'pin') === 'pin';
}

export function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
