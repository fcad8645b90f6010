export * from './sqlite-database';
export * from './sqlite-event-log.adapter';
export * from './sqlite-fact-store.adapter';
export * from './sqlite-session-store.adapter';
export * from './sqlite-search-index.adapter';
export * from './sqlite-access-store.adapter';
export * from './sqlite-projection-versions';
export * from './sqlite-key-store.adapter';
