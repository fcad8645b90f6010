export * from './engram-config';
export * from './embedder-relevance';
