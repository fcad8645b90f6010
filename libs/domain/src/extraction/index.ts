// Extraction: one-fact-per-item memories and the episode of every turn.
export * from './extraction.strategy';
export * from './extraction.decider';
export * from './episodes';
export { AVOIDED, NOT_HELD } from './constraint-values';
export {
  DEFAULT_WORKING_MEMORY_MINUTES,
  defaultTimeScopes,
  endOfScope,
  scopeEnd,
  TIME_SCOPES,
  turnScopeEnd,
  type TimeScope,
  type TimeScopes,
} from './time-scope';
