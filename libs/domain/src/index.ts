// @engram/domain: pure decisions, one folder per concern; each folder's index.ts is its public surface.
export * from './decider';
export * from './text';
export * from './privacy';
export * from './screening';
export * from './extraction';
export * from './rules';
export * from './resolution';
export * from './ranking';
export * from './recall';
export * from './forgetting';
export * from './insights';
export * from './summaries';
export * from './webhooks';
