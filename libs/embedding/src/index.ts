export * from './hashing-embedder';
