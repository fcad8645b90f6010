// Text: BM25 terms and token counts, BM25 itself (in memory), values read out of sentences, excerpts, cue matching, entity aliases, translation and related words through a lexicon.
export * from './tokenizer';
export * from './bm25';
export * from './cue-matching';
export * from './text-values';
export * from './excerpt';
export * from './entity-aliases';
export * from './translation';
export * from './related-terms';
