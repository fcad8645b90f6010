// Resolution: merging, superseding and retracting against what is known; the user's own memory commands;
// the resolver's decider, which runs them and the insight, summary and forgetting deciders in order.
export { ResolverDecider, isMemoryCommand, isResolverCommand } from './resolver.decider';
export type { MemoryCommand, ResolverCommand, ResolverDeciderOptions, ResolverEvent, ResolverStep } from './resolver.decider';
export { ResolutionDecider } from './resolution.decider';
export {
  DEFAULT_PINNED_ATTRIBUTES,
  familyOf,
  isSensitive,
  PINNED_FAMILIES,
  SENSITIVE_FAMILIES,
  SENSITIVE_FACTS_MODES,
} from './resolution.state';
export type { ResolutionOptions, ResolverState, SensitiveFacts } from './resolution.state';
export { memoryIdOf } from './resolution.records';
export { normaliseValue, sameValue, similarity, valueShape } from './resolution.matching';
export type { ValueShape } from './resolution.matching';
export { MemoryControlDecider, profileExtraction, revertTarget, PROFILE_SOURCE } from './memory-control.decider';
export type { MemoryControlCommand } from './memory-control.decider';
