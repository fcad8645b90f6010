export * from './cedict-lexicon';
export * from './create-lexicon';
export * from './wordnet-lexicon';
