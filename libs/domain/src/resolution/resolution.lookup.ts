// Finding the memory an item speaks of: by merge key, the near-duplicate of its content, the one its
// subject mentioned last, the scoped memory of a family (`budget:…`) mentioned last.
import type { ExtractedItem, MemoryRecord } from '@engram/contracts';
import { jaccard, sameNormalised, termsOf, type ValueShape, valueShape } from './resolution.matching';
import type { ResolverState } from './resolution.state';

export function findByMergeKey(state: ResolverState, mergeKey: string): MemoryRecord | undefined {
  for (const memory of state.values()) if (memory.mergeKey === mergeKey) return memory;
  return undefined;
}

/** The closest active memory of the same subject and kind, if close enough; ties go to the lower id. */
export function nearDuplicate(item: ExtractedItem, state: ResolverState, threshold: number): MemoryRecord | null {
  const itemTerms = termsOf(item.content);
  let best: { memory: MemoryRecord; score: number } | null = null;
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.kind !== item.kind || memory.subject !== item.subject) continue;
    const memoryTerms = termsOf(memory.content);
    // Jaccard is at most min/max of the two set sizes: a text far longer or shorter cannot reach the
    // threshold, so it is not compared term by term (same result; equal texts are checked first).
    const large = Math.max(itemTerms.length, memoryTerms.length) - 1;
    if (large > 0 && (Math.min(itemTerms.length, memoryTerms.length) - 1) / large < threshold) {
      if (!sameNormalised(item.content, itemTerms, memory.content, memoryTerms)) continue;
    }
    const score = jaccard(item.content, itemTerms, memory.content, memoryTerms);
    if (score < threshold) continue;
    if (!best || score > best.score || (score === best.score && memory.memoryId < best.memory.memoryId)) {
      best = { memory, score };
    }
  }
  return best?.memory ?? null;
}

/** The subject's active memory seen most recently before the item; ties go to the higher id. */
export function lastMentioned(item: ExtractedItem, state: ResolverState, shape: ValueShape | null): MemoryRecord | null {
  const at = Date.parse(item.validFrom);
  let best: { memory: MemoryRecord; seen: number } | null = null;
  for (const memory of state.values()) {
    const seen = Date.parse(memory.lastSeenAt);
    if (memory.status !== 'active' || memory.subject !== item.subject || seen > at) continue;
    if (memory.kind === 'episode' || (shape !== null && valueShape(memory.value) !== shape)) continue;
    if (!best || seen > best.seen || (seen === best.seen && memory.memoryId > best.memory.memoryId)) {
      best = { memory, seen };
    }
  }
  return best?.memory ?? null;
}

/**
 * Attributes an extractor scopes by what they are about (`budget:空气净化器`). An unscoped item of the
 * family ("预算提到五万了" after "买车预算三万") names no thing: it speaks of the scoped memory of that
 * family mentioned last, as people do, instead of adding a second, unscoped budget.
 */
const SCOPED_FAMILIES: readonly string[] = ['budget'];

/**
 * Families whose unscoped *correction* speaks of the scoped memory mentioned last: a plain statement
 * "the deadline is Friday" may be a new deadline, a corrected one ("…deadline moved to…") is not.
 */
export const CORRECTED_FAMILIES: readonly string[] = ['budget', 'deadline'];

export function latestScoped(
  item: ExtractedItem,
  state: ResolverState,
  families: readonly string[] = SCOPED_FAMILIES,
): MemoryRecord | undefined {
  if (!families.includes(item.attribute)) return undefined;
  const prefix = `${item.attribute}:`;
  const at = Date.parse(item.validFrom);
  let best: MemoryRecord | undefined;
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.subject !== item.subject || !memory.attribute.startsWith(prefix)) continue;
    if (Date.parse(memory.lastSeenAt) > at) continue;
    if (!best || memory.lastSeenAt > best.lastSeenAt || (memory.lastSeenAt === best.lastSeenAt && memory.memoryId > best.memoryId))
      best = memory;
  }
  return best;
}
