export * from './mongo-fact-store.adapter';
export * from './mongo-session-store.adapter';
export * from './mongo-access-store.adapter';
export { compoundId } from './mongo-common';
export * from './mongo-projection-versions';
export * from './mongo-key-store.adapter';
export * from './mongo-log-versions';
export * from './mongo-webhook-store.adapter';
export * from './mongo-outages';
