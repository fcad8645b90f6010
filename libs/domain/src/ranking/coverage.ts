import type { MemoryRecord } from '@engram/contracts';
import type { Lexicon } from '@engram/ports';
import { tokenize } from '../text/tokenizer';
import { heldThroughThesaurus, lexiconTerms } from '../text/related-terms';
import { heldInEitherLanguage } from '../text/translation';

/**
 * Share of the query's distinct terms found in what the memory is searched by. A Chinese term counts
 * when it appears anywhere in the text: segmentation differs between a statement and a question
 * ("搬家定在 11 月 8 号" holds 搬家, "哪天搬的家" asks for 搬 and 家), characters do not. With a
 * lexicon, a term also counts when the memory says it in the other language ("pictures" is held
 * by 上传商品照片, 照片 by "the product photographs") or says what it means in other Chinese words (拍照
 * "take a picture" by 照片 "photograph, picture"): the memory's terms are read with their English.
 * With a thesaurus, an English term also counts when the memory says it in other words or more
 * specifically ("doctor" by "physician", "arrive" by "lands"): the memory's terms are read with their
 * related words, the query term with its dictionary forms.
 */
export function coverageOf(queryTerms: readonly string[], memory: MemoryRecord, lexicon?: Lexicon): number {
  if (queryTerms.length === 0) return 1;
  // The attribute says what the memory is about ("editor" for "I prefer VS Code"): a query may name it.
  const about = memory.kind === 'episode' ? '' : memory.attribute.replace(/[:_/-]+/g, ' ');
  // The facts read from its turn count; the speaker and the date do not (steering weighs those).
  const text = [memory.content, memory.value, ...memory.entities, about, ...(memory.keys ?? [])].join(' ');
  const held = new Set([...tokenize(text), ...lexiconTerms(text, lexicon, 'memory')]);
  const folded = text.normalize('NFKC').toLowerCase();
  const found = queryTerms.filter(
    (t) => (HAN.test(t) && folded.includes(t)) || heldInEitherLanguage(t, held, lexicon) || heldThroughThesaurus(t, held, lexicon),
  );
  return found.length / queryTerms.length;
}

const HAN = /\p{Script=Han}/u;
