export * from './access-store.port';
export * from './clock.port';
export * from './embedder.port';
export * from './event-log.port';
export * from './fact-store.port';
export * from './search-index.port';
export * from './session-store.port';
export * from './projection-versions.port';
