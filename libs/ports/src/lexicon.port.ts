/** How a Chinese word is said in English: the bilingual lexicon (CC-CEDICT, or none). */
export const Lexicon = Symbol('Lexicon');

/**
 * Knowledge the hashing embedder has not got: what a Chinese word means in English, so an English
 * question meets a Chinese memory and two Chinese wordings meet on their English meaning. Read once
 * when a process starts and never changed, so every process and every rebuild index the same terms.
 */
export interface Lexicon {
  /** Names the dictionary and how it was read: it changes what is indexed, so a rebuild follows a change. */
  readonly id: string;
  /** The longest word it holds, in characters: how far a word is looked for. */
  readonly longestWord: number;
  /**
   * What a Chinese word means in English: its first senses, each as its content words (as `tokenize`
   * writes English: lowercased, stemmed, stop words out), 照片 → [["photograph"], ["picture"]]; empty
   * for a word it holds whose senses carry no content word (我们 "we"); undefined for a word it does
   * not hold.
   */
  sensesOf(word: string): readonly (readonly string[])[] | undefined;
}
