// Extraction: one-fact-per-item memories and the episode of every turn.
export * from './extraction.strategy';
export * from './extraction.decider';
export * from './episodes';
export { DEFAULT_WORKING_MEMORY_MINUTES, defaultTimeScopes, scopeEnd, turnScopeEnd, type TimeScopes } from './time-scope';
