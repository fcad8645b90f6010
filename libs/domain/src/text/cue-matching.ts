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

/**
 * A cue list's regex and, to skip it cheaply, one literal each of its cues must contain (lower
 * case), as one plain alternation: a text holding none of them cannot match, and most texts hold
 * none. The cue regex is case-insensitive Unicode with a lookbehind before every Latin cue, which
 * keeps the regex engine from skipping ahead by first characters: over every clause and memory it
 * was a fifth of the resolver's time (the insight rules); the plain alternation on the text in lower
 * case costs a tenth of it (measured on the shipped lists and set). `literals` is null when some cue
 * has no literal that lower-casing finds exactly (then the regex always runs).
 */
export interface CueMatcher {
  readonly re: RegExp;
  readonly literals: RegExp | null;
}

/**
 * A piece of a cue the check may look for: printable ASCII or Han only. The regex is case-insensitive by Unicode simple case folding; for those characters, the characters it takes as equal are exactly
 * those whose lower case is theirs, but for 'ſ' (folds to s), which `foldedForCues` maps itself.
 * Pieces are split where the regex is not literal (whitespace is `\s+`, an apostrophe `['’]`).
 */
const LITERAL_PIECE = /^[ -~\p{Script=Han}]+$/u;

function literalOf(cue: string): string | null {
  const pieces = cue
    .trim()
    .split(/\s+|'/)
    .filter((piece) => piece.length > 0 && LITERAL_PIECE.test(piece));
  if (pieces.length === 0) return null;
  return pieces.reduce((longest, piece) => (piece.length > longest.length ? piece : longest)).toLowerCase();
}

export function cueMatcher(cues: readonly string[]): CueMatcher {
  const literals = [...new Set(cues.map((c) => c.trim()).filter(Boolean))].map(literalOf);
  return {
    re: cueRegExp(cues),
    literals: literals.every((literal): literal is string => literal !== null)
      ? new RegExp(
          [...new Set(literals)]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|'),
        )
      : null,
  };
}

/** The text as `mayMatch` reads it (lower case, 'ſ' as 's'); made once for many matchers. */
export function foldedForCues(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes('ſ') ? lower.replaceAll('ſ', 's') : lower;
}

/** False only when the matcher's regex cannot match the text `folded` was made from. */
export function mayMatch(matcher: CueMatcher, folded: string): boolean {
  return matcher.literals === null || matcher.literals.test(folded);
}

const cache = new WeakMap<readonly string[], CueMatcher>();
/** The last text folded: callers try list after list on one clause. */
let lastText = '';
let lastFolded = '';

/** The first (leftmost) cue found in the text, or null. Matchers are cached per list. */
export function findCue(text: string, cues: readonly string[]): CueMatch | null {
  let matcher = cache.get(cues);
  if (!matcher) {
    matcher = cueMatcher(cues);
    cache.set(cues, matcher);
  }
  if (text !== lastText) {
    lastText = text;
    lastFolded = foldedForCues(text);
  }
  if (!mayMatch(matcher, lastFolded)) return null;
  const m = matcher.re.exec(text);
  return m ? { cue: m[0], index: m.index, end: m.index + m[0].length } : null;
}

export function hasCue(text: string, cues: readonly string[]): boolean {
  return findCue(text, cues) !== null;
}
