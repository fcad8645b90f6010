// Ranking: fusion, steering, priors and what a question asks for.
export * from './ranking';
export * from './coverage';
export * from './ranking.config';
export * from './query-understanding.config';
export * from './query-understanding';
export * from './references';
