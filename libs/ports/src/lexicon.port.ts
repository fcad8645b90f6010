/** What a word means in other words: the bilingual lexicon (CC-CEDICT) and the English thesaurus (WordNet), or none. */
export const Lexicon = Symbol('Lexicon');

/**
 * Knowledge the hashing embedder has not got: what a Chinese word means in English, so an English
 * question meets a Chinese memory and two Chinese wordings meet on their English meaning; and what
 * an English word is also said by, so two English wordings meet (physician / doctor, lands / arrive). Read
 * once when a process starts and never changed, so every process and every rebuild index the same terms.
 */
export interface Lexicon {
  /** Names the dictionaries and how they were read: they change what is indexed, so a rebuild follows a change. */
  readonly id: string;
  /** The longest Chinese word it holds, in characters: how far a word is looked for. */
  readonly longestWord: number;
  /**
   * What a Chinese word means in English: its first senses, each as its content words (as `tokenize`
   * writes English: lowercased, stemmed, stop words out), 照片 → [["photograph"], ["picture"]]; empty
   * for a word it holds whose senses carry no content word (我们 "we"); undefined for a word it does
   * not hold.
   */
  sensesOf(word: string): readonly (readonly string[])[] | undefined;
  /**
   * English words related to an English word (lowercased, as written or as `tokenize` stems it), as
   * `tokenize`'s terms: undefined for a word it does not hold (a name, a typo, or no thesaurus).
   */
  relatedOf(word: string): RelatedWords | undefined;
}

/** An English word's related words, by how they relate: the lexicon's users read them differently. */
export interface RelatedWords {
  /**
   * Its dictionary forms, where they are not the word as given: named → name, "arriv" (`tokenize`'s
   * stem of "arrived") → arrive. A question is read with them, so "arrived" meets what a memory is
   * indexed by.
   */
  readonly forms: readonly string[];
  /**
   * Words that say the same thing: its first sense's synonyms (bike → bicycle) and forms derived
   * from it (arrive → arrival). A memory is also found by them.
   */
  readonly same: readonly string[];
  /**
   * What its first sense is a kind of (lands → arrive, purchase → acquire): a memory is also found by a
   * question that asks more generally than it was said.
   *
   * A question is widened by neither: a memory's words are already one step from the question's,
   * and two steps (the question's synonyms meeting the memory's broader words: "car" → "machine" ←
   * "website") join things that have nothing to do with each other.
   */
  readonly broader: readonly string[];
}
