import { escapeRegExp, findCue } from '../text/cue-matching';
import { trimPunctuation } from '../text/text-values';
import type { RuleExtractorConfig } from './rule-extractor.config';

/** How a turn becomes clauses, and what a clause is once its leads are read (`clause-reader.ts`). */
export interface Clause {
  /** The clause as said (trimmed): becomes the item's content. */
  readonly content: string;
  /** What the rules read: connectors, "remember"/"actually" leads and a third-party subject removed. */
  readonly body: string;
  readonly subject: string;
  /** "记住…", "remember that…": said on purpose, so more confident and more important. */
  readonly remembered: boolean;
  /** "其实…", "actually…", "不对，…": the clause corrects an earlier statement. */
  readonly corrected: boolean;
  /**
   * A correction lead that says what follows replaces something ("actually", "其实", "我改主意了"),
   * not one that is as often conversation ("sorry", "no," answering a question): only then may the
   * clause's findings land on another memory (`correction`).
   */
  readonly retargets: boolean;
  /** "永远", "always", "never forget": said with emphasis, as important as "记住". */
  readonly emphasised: boolean;
}

export const SENTENCE = /[^。！？!?；;\n]+[。！？!?；;\n]*/gu;
const clauseBreaks = new WeakMap<RuleExtractorConfig['clauses'], RegExp>();

/** Commas, a full stop that is not an abbreviation's ("Dr. Alvarez"), or "and/but/so" before a new subject. */
function clauseBreak(config: RuleExtractorConfig): RegExp {
  let re = clauseBreaks.get(config.clauses);
  if (!re) {
    const { abbreviations, clauseJoins, newSubjects } = config.clauses;
    const joins = clauseJoins.length > 0 ? `|\\s+(?:${clauseJoins.join('|')})\\s+(?=(?:${newSubjects.join('|')})\\b)` : '';
    re = new RegExp(`，|,(?!\\d)|(?<=\\.)(?<!(?<![\\p{L}])(?:${abbreviations.map(escapeRegExp).join('|')})\\.)\\s+${joins}`, 'giu');
    clauseBreaks.set(config.clauses, re);
  }
  return re;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Quotations and titles: 《…》, “…”, 「…」, 『…』, "…", and '…' opened before a word and closed after
 * one (so the apostrophes of "I'd" and "the kids' toys" open nothing). At most 80 characters: an
 * unclosed mark does not swallow the sentence.
 */
const QUOTED =
  /《[^》]{1,80}》|“[^”]{1,80}”|‘[^’]{1,80}’|「[^」]{1,80}」|『[^』]{1,80}』|"[^"]{1,80}"|(?<![\p{L}\p{N}])'[^']{1,80}'(?![\p{L}\p{N}])/gu;

function quotedSpans(text: string): Span[] {
  return [...text.matchAll(QUOTED)].map((m) => ({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
}

/**
 * Splits a turn into clauses, keeping "不是三万，是五万" and "Actually, it's 50k" whole. Clauses are
 * spans of the original text, so content keeps the user's exact wording and punctuation.
 */
export function clausesOf(text: string, config: RuleExtractorConfig): string[] {
  const clauses: string[] = [];
  for (const sentence of text.matchAll(SENTENCE)) {
    const offset = sentence.index ?? 0;
    const pieces: Span[] = [];
    const quoted = quotedSpans(sentence[0]);
    let start = 0;
    for (const sep of sentence[0].matchAll(clauseBreak(config))) {
      // "I'd recommend 'Thinking, Fast and Slow'": a comma inside a title or a quotation breaks nothing.
      if (quoted.some((q) => (sep.index ?? 0) > q.start && (sep.index ?? 0) < q.end)) continue;
      pieces.push({ start: offset + start, end: offset + (sep.index ?? 0) });
      start = (sep.index ?? 0) + sep[0].length;
    }
    pieces.push({ start: offset + start, end: offset + sentence[0].length });
    const meaningful = pieces.filter((p) => trimPunctuation(text.slice(p.start, p.end)).length > 0);
    clauses.push(...mergePieces(text, meaningful, config).map((p) => text.slice(p.start, p.end).trim()));
  }
  return clauses;
}

/**
 * The leads a clause may open with, as one list built once per configuration: findCue caches its
 * compiled regex per list *object*, so a list rebuilt per call compiled a large alternation per
 * sentence (~4 % of ingest CPU).
 */
const leadLists = new WeakMap<RuleExtractorConfig, readonly string[]>();

function leadsOf(config: RuleExtractorConfig): readonly string[] {
  let leads = leadLists.get(config);
  if (!leads) {
    const { clauses, corrections } = config;
    leads = [...clauses.connectors, ...clauses.remember, ...corrections.correctionLead, ...corrections.correctionAlone];
    leadLists.set(config, leads);
  }
  return leads;
}

function mergePieces(text: string, pieces: readonly Span[], config: RuleExtractorConfig): Span[] {
  const leads = leadsOf(config);
  const merged: Span[] = [];
  let carry: Span | null = null;
  for (const piece of pieces) {
    const current: Span = carry ? { start: carry.start, end: piece.end } : piece;
    carry = null;
    const previous = merged[merged.length - 1];
    const pieceText = text.slice(piece.start, piece.end).trim();
    const previousText = previous ? text.slice(previous.start, previous.end) : '';
    const notButIs = config.clauses.notButIs.some((pair) => pair.not.test(previousText) && pair.but.test(pieceText));
    const continues = config.clauses.continues.some((re) => re.test(trimPunctuation(pieceText)));
    if (previous && (notButIs || continues)) {
      merged[merged.length - 1] = { start: previous.start, end: piece.end };
    } else if (isOnlyLead(pieceText, leads)) {
      carry = current;
    } else {
      merged.push(current);
    }
  }
  if (carry) merged.push(carry);
  return merged;
}

function isOnlyLead(piece: string, leads: readonly string[]): boolean {
  const bare = trimPunctuation(piece);
  const match = findCue(bare, leads);
  return match !== null && match.index === 0 && match.end === bare.length;
}

/** Removes one cue from the start of the text, if one is there. */
export function stripLead(text: string, cues: readonly string[]): { rest: string; matched: boolean } {
  const match = findCue(text, cues);
  if (!match || match.index !== 0) return { rest: text, matched: false };
  return { rest: trimClause(text.slice(match.end)), matched: true };
}

/** Only separators come off a clause's edges: closing quotes and brackets belong to the content. */
export function trimClause(raw: string): string {
  return raw.replace(/^[\s,，。.;；:：!！、]+|[\s,，。.;；:：!！、]+$/gu, '');
}
