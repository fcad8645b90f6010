import type { Lexicon } from '@engram/ports';
import { tokenize } from './tokenizer';
import { translatedTerms } from './translation';

/**
 * Which side of a search a text is on. A memory is found by its words' dictionary forms, synonyms
 * and what they are a kind of (it said "our plane lands at 9", a question asks when we "arrive"); a
 * question is not widened (its words are searched in their dictionary form: `termsInDictionaryForm`):
 * a memory's words are then one step from the question's, where two steps (the question's synonyms
 * meeting the memory's broader words) join things that have little to do with each other.
 */
export type LexiconSide = 'memory' | 'question';

/**
 * The terms a text is also found by through the lexicon, beyond its own: the English of its Chinese
 * words (`translatedTerms`), and the words related to its own English words (the thesaurus: physician
 * → doctor, couch → sofa, lands → arrive) for a memory only, as `LexiconSide` says. Deduplicated;
 * terms the text already holds are left out.
 *
 * The English of Chinese words is not looked up in the thesaurus: a dictionary's first sense is
 * already a guess at what was meant (开发 "exploit"), and the thesaurus' words of that guess ("use")
 * matched questions about something else (measured: docs/benchmarks.md, "Meaning across English
 * words"). A word capitalised inside a sentence is a name (John, Paris, Turkey), not looked up.
 */
export function lexiconTerms(text: string, lexicon: Lexicon | undefined, side: LexiconSide): string[] {
  if (!lexicon) return [];
  const key = `${side}\u0000${text}`;
  let bySide = memos.get(lexicon);
  if (!bySide) {
    bySide = new Map();
    memos.set(lexicon, bySide);
  }
  if (text.length > MEMO_MAX_CHARS) return lexiconTermsOf(text, lexicon, side);
  let cached = bySide.get(key);
  if (cached === undefined) {
    cached = lexiconTermsOf(text, lexicon, side);
    if (bySide.size >= MEMO_ENTRIES) bySide.delete(bySide.keys().next().value as string);
    bySide.set(key, cached);
  }
  return [...cached];
}

function lexiconTermsOf(text: string, lexicon: Lexicon, side: LexiconSide): string[] {
  const own = new Set(tokenize(text));
  const translated = translatedTerms(text, lexicon);
  const out = new Set(translated);
  for (const word of thesaurusWords(text)) {
    const related = lexicon.relatedOf(word);
    if (!related) continue;
    if (side === 'question') break;
    for (const term of related.forms) out.add(term);
    for (const term of related.same) out.add(term);
    for (const term of related.broader) out.add(term);
  }
  for (const term of own) out.delete(term);
  return [...out];
}

/**
 * A question's own terms as the index is searched with them: each English word's term replaced by
 * its dictionary forms where the thesaurus gives any ("arrived", tokenized "arriv", is searched as
 * "arrive"). A memory is indexed with both its words' terms and their forms (`lexiconTerms`), so a
 * word said alike on both sides counts once, as without the thesaurus, and "arrived" still meets
 * "arrive": adding the forms to the question instead would count "asked" twice in a memory that
 * says "asked" (as "asked" and as "ask") and rank it above one that answers.
 */
export function termsInDictionaryForm(text: string, lexicon: Lexicon | undefined): string[] {
  const terms = tokenize(text);
  if (!lexicon) return terms;
  const forms = new Map<string, readonly string[]>();
  for (const word of thesaurusWords(text)) {
    const found = lexicon.relatedOf(word)?.forms ?? [];
    const [term] = tokenize(word);
    if (found.length > 0 && term !== undefined) forms.set(term, found);
  }
  return forms.size === 0 ? terms : terms.flatMap((term) => forms.get(term) ?? [term]);
}

/**
 * Whether an English query term is held by a memory's terms through its dictionary form (`held`
 * being the memory's own terms and its `lexiconTerms` as a memory, so a synonym or a narrower word
 * the memory says is already there): "arrived", tokenized "arriv", by a memory whose "lands" is a
 * kind of arriving.
 */
export function heldThroughThesaurus(term: string, held: ReadonlySet<string>, lexicon: Lexicon | undefined): boolean {
  if (!lexicon || !LATIN_WORD.test(term)) return false;
  return (lexicon.relatedOf(term)?.forms ?? []).some((form) => held.has(form));
}

/**
 * The English words of a text as the thesaurus reads them: lowercased, not stop words (what
 * `tokenize` leaves out has no related words worth adding), not a name (capitalised, and not the
 * first word of a sentence).
 */
export function thesaurusWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.normalize('NFKC').matchAll(LATIN_WORDS)) {
    const word = match[0];
    if (/^\p{Lu}/u.test(word) && !startsSentence(text, match.index ?? 0)) continue;
    const lower = word.toLowerCase().replace(/[’‘]/g, "'");
    if (tokenize(lower).length === 0) continue;
    words.push(lower.replace(/'s$/, ''));
  }
  return words;
}

/** Nothing but spaces and quotes since the text's start or the last full stop, question or exclamation mark. */
function startsSentence(text: string, at: number): boolean {
  const from = Math.max(0, at - 16);
  return (from === 0 ? /(?:^|[.!?。！？:\n])[\s"'“‘(]*$/u : /[.!?。！？:\n][\s"'“‘(]*$/u).test(text.slice(from, at));
}

const LATIN_WORDS = /[a-zA-Z][a-zA-Z'’-]*/g;
const LATIN_WORD = /^[a-z][a-z'-]*$/;

/** The same texts are read again and again (a memory at every question that ranks it): the latest are kept per lexicon. */
const MEMO_ENTRIES = 8192;
const MEMO_MAX_CHARS = 2000;
const memos = new WeakMap<Lexicon, Map<string, readonly string[]>>();
