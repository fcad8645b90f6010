export * from './hashing-embedder';
export * from './openai-compatible-embedder';
export * from './create-embedder';
