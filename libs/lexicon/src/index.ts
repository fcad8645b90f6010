export * from './cedict-lexicon';
export * from './create-lexicon';
