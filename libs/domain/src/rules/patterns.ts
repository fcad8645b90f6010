/**
 * Patterns built from a language pack's regex sources: the rule supplies the shape, with `…` where
 * the alternatives go, the packs the alternatives. `alternation(words.firstPerson, '^(?:…)\\s*', 'iu')`
 * is `^(?:我们|我|咱们|we|i)\s*`. Each pattern is compiled once per list, shape and flags (a pattern
 * rebuilt per clause costs CPU on ingest).
 */
const compiled = new WeakMap<readonly string[], Map<string, Map<string, RegExp>>>();

export function alternation(sources: readonly string[], shape: string, flags: string): RegExp {
  let byShape = compiled.get(sources);
  if (!byShape) {
    byShape = new Map();
    compiled.set(sources, byShape);
  }
  let byFlags = byShape.get(shape);
  if (!byFlags) {
    byFlags = new Map();
    byShape.set(shape, byFlags);
  }
  let re = byFlags.get(flags);
  if (!re) {
    // No alternatives (no pack has any): the pattern's alternatives match nothing.
    const alternatives = sources.length > 0 ? sources.join('|') : '(?!)';
    re = new RegExp(
      shape.replace('…', () => alternatives),
      flags,
    );
    byFlags.set(flags, re);
  }
  return re;
}

/** The match of the first frame (in pack order) that matches the text. */
export function firstMatch(frames: readonly RegExp[], text: string): RegExpExecArray | null {
  for (const frame of frames) {
    const m = frame.exec(text);
    if (m) return m;
  }
  return null;
}
