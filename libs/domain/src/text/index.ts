// Text: BM25 terms and token counts, values read out of sentences, excerpts, cue matching, entity aliases.
export * from './tokenizer';
export * from './cue-matching';
export * from './text-values';
export * from './excerpt';
export * from './entity-aliases';
