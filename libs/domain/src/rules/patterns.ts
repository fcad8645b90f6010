/**
 * Patterns built from a language pack's regex sources: the rule supplies the shape, the packs the
 * alternatives. `alternation(words.firstPerson, (a) => `^(?:${a})\\s*`, 'iu')` is `^(?:我们|我|咱们|we|i)\s*`.
 * Each pattern is compiled once per list and shape (a pattern rebuilt per clause costs CPU on ingest).
 */
const compiled = new WeakMap<readonly string[], Map<string, RegExp>>();

export function alternation(sources: readonly string[], shape: (alternatives: string) => string, flags: string): RegExp {
  const key = `${shape('\u0000')}/${flags}`;
  let byShape = compiled.get(sources);
  if (!byShape) {
    byShape = new Map();
    compiled.set(sources, byShape);
  }
  let re = byShape.get(key);
  if (!re) {
    // No alternatives (no pack has any): the pattern's alternatives match nothing.
    re = new RegExp(shape(sources.length > 0 ? sources.join('|') : '(?!)'), flags);
    byShape.set(key, re);
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
