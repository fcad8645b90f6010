// Forgetting: what decays, archives and expires, by policy.
export { ForgettingDecider, DEFAULT_FORGETTING_POLICY, forgettingDecisions, holdsAt, verdictFor, archivalAge } from './forgetting.decider';
export type { ForgettingContext, ForgettingDecision, ForgettingPolicy } from './forgetting.decider';
