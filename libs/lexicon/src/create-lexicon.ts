import type { EmbedderOptions } from '@engram/config';
import type { Lexicon } from '@engram/ports';
import { installedCedictLexicon } from './cedict-lexicon';
import { installedWordnetThesaurus, type Thesaurus } from './wordnet-lexicon';

/** No lexicon (`ENGRAM_LEXICON=none`): every word is held only as written. */
export const NO_LEXICON: Lexicon = { id: 'none', longestWord: 0, sensesOf: () => undefined, relatedOf: () => undefined };

/**
 * The lexicon ENGRAM_LEXICON names: CC-CEDICT with WordNet beside it (the default), CC-CEDICT alone,
 * or none; each read from its installed dependency on first use.
 */
export function createLexicon(options: Pick<EmbedderOptions, 'ENGRAM_LEXICON'>): Lexicon {
  switch (options.ENGRAM_LEXICON) {
    case 'cedict+wordnet':
      return withThesaurus(installedCedictLexicon(), installedWordnetThesaurus());
    case 'cedict':
      return installedCedictLexicon();
    default:
      return NO_LEXICON;
  }
}

/** A bilingual lexicon that also knows English words' related words. */
export function withThesaurus(bilingual: Lexicon, thesaurus: Thesaurus): Lexicon {
  return {
    id: `${bilingual.id}+${thesaurus.id}`,
    get longestWord() {
      return bilingual.longestWord;
    },
    sensesOf: (word) => bilingual.sensesOf(word),
    relatedOf: (word) => thesaurus.relatedOf(word),
  };
}
