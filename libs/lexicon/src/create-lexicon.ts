import type { EmbedderOptions } from '@engram/config';
import type { Lexicon } from '@engram/ports';
import { installedCedictLexicon } from './cedict-lexicon';

/** No lexicon (`ENGRAM_LEXICON=none`): every word is held only as written. */
export const NO_LEXICON: Lexicon = { id: 'none', longestWord: 0, sensesOf: () => undefined };

/** The lexicon ENGRAM_LEXICON names: CC-CEDICT (the default), read from the installed dependency on first use, or none. */
export function createLexicon(options: Pick<EmbedderOptions, 'ENGRAM_LEXICON'>): Lexicon {
  return options.ENGRAM_LEXICON === 'cedict' ? installedCedictLexicon() : NO_LEXICON;
}
