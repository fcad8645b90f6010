/**
 * Merges language packs into one set of cues: lists are joined in pack order, records merged key by
 * key (a key's first pack decides its place). A rule then finds the cues of every language at once.
 * Cue matching does not depend on where a language's cues sit in a list: a cue can only compete with
 * cues that start with the same character, which are of the same language and keep their order.
 */
export function mergePacks<T extends object>(packs: readonly T[]): T {
  return packs.reduce((merged, pack) => mergeData(merged, pack) as T);
}

function mergeData(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isRecord(a) && isRecord(b)) {
    const merged: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) merged[key] = key in a ? mergeData(a[key], value) : value;
    return merged;
  }
  return a;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RegExp);
}
