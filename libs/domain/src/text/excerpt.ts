import { countTokens } from './tokenizer';

/**
 * A long memory (an episode that holds a whole message) is cut for the context, not dropped: the
 * window of at most `chars` characters (and `tokens` tokens) that holds the most of the query's
 * terms, snapped to word or sentence edges, with "…" where text was left out. Without terms in
 * the text, its beginning. Deterministic; text within the cap comes back unchanged.
 */
export function excerptAround(text: string, terms: readonly string[], cap: { readonly chars: number; readonly tokens: number }): string {
  if (text.length <= cap.chars && countTokens(text) <= cap.tokens) return text;
  let chars = Math.min(cap.chars, text.length);
  for (;;) {
    const cut = windowOf(text, terms, chars - 2); // room for the two ellipses
    if (countTokens(cut) <= cap.tokens || chars <= 20) return cut;
    chars = Math.floor(chars * 0.8); // CJK and numbers take more tokens per character: narrow until it fits
  }
}

function windowOf(text: string, terms: readonly string[], chars: number): string {
  const hits = termHits(text, terms);
  let bestStart = 0;
  let bestScore = -1;
  // Candidate windows start a little before each hit, so the term has some context before it.
  const starts = [0, ...hits.map((h) => Math.max(0, h.at - Math.floor(chars / 5)))];
  for (const start of starts) {
    const s = Math.min(start, Math.max(0, text.length - chars));
    const end = s + chars;
    const distinct = new Set(hits.filter((h) => h.at >= s && h.at + h.length <= end).map((h) => h.term));
    const score = distinct.size;
    if (score > bestScore) {
      bestScore = score;
      bestStart = s;
    }
  }
  let start = snapStart(text, bestStart);
  let end = snapEnd(text, Math.min(text.length, start + chars));
  if (end <= start) end = Math.min(text.length, bestStart + chars);
  if (end - start > chars) start = end - chars;
  const body = text.slice(start, end).trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

interface Hit {
  readonly term: string;
  readonly at: number;
  readonly length: number;
}

/** Where the query's terms occur (case-insensitive; terms are tokenizer output, stems included). */
function termHits(text: string, terms: readonly string[]): Hit[] {
  const lower = text.normalize('NFKC').toLowerCase();
  // NFKC can change lengths (full-width forms keep theirs); positions are only used to choose a window.
  const hits: Hit[] = [];
  for (const term of new Set(terms)) {
    if (term.length === 0) continue;
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + term.length)) {
      hits.push({ term, at, length: term.length });
    }
  }
  return hits.sort((a, b) => a.at - b.at);
}

const BOUNDARY = /[\s。！？!?；;，,、.:：]/u;

/** Moves a cut start forward to just after a space or punctuation mark, if one is near. */
function snapStart(text: string, start: number): number {
  if (start === 0) return 0;
  for (let i = start; i < Math.min(text.length, start + 24); i++) if (BOUNDARY.test(text[i])) return i + 1;
  return start;
}

/** Moves a cut end back to a space or punctuation mark, if one is near. */
function snapEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  for (let i = end; i > Math.max(0, end - 24); i--) if (BOUNDARY.test(text[i - 1])) return i;
  return end;
}
