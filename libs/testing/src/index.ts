export * from './fixtures';
export * from './event-log.contract';
export * from './fact-store.contract';
export * from './session-store.contract';
export * from './search-index.contract';
export * from './access-store.contract';
export * from './embedder.contract';
export * from './temp-dir';
