/**
 * Cue lists are plain strings in configuration; this turns them into matchers once.
 * Latin cues match on word boundaries, case-insensitively, with flexible whitespace
 * ("i prefer" matches "I  prefer" but not "I preferred"); Chinese cues match as substrings,
 * because Chinese has no spaces to anchor on.
 */

const LATIN = /[A-Za-z]/;

export interface CueMatch {
  readonly cue: string;
  readonly index: number;
  readonly end: number;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Regex source for one cue, with boundaries on its Latin edges. */
export function cueSource(cue: string): string {
  const body = escapeRegExp(cue.trim()).replace(/\s+/g, '\\s+').replace(/'/g, "['’]");
  const start = LATIN.test(cue.trim()[0] ?? '') ? '(?<![\\p{L}\\p{N}])' : '';
  const end = LATIN.test(cue.trim().slice(-1)) ? '(?![\\p{L}\\p{N}])' : '';
  return `${start}${body}${end}`;
}

/** One alternation, longest cue first so "我不喜欢" wins over "喜欢". */
export function cueRegExp(cues: readonly string[], flags = 'iu'): RegExp {
  const sorted = [...new Set(cues.map((c) => c.trim()).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return /(?!)/u;
  return new RegExp(sorted.map(cueSource).join('|'), flags);
}

const cache = new WeakMap<readonly string[], RegExp>();

/** The first (leftmost) cue found in the text, or null. Compiled regexes are cached per list. */
export function findCue(text: string, cues: readonly string[]): CueMatch | null {
  let re = cache.get(cues);
  if (!re) {
    re = cueRegExp(cues);
    cache.set(cues, re);
  }
  const m = re.exec(text);
  return m ? { cue: m[0], index: m.index, end: m.index + m[0].length } : null;
}

export function hasCue(text: string, cues: readonly string[]): boolean {
  return findCue(text, cues) !== null;
}
