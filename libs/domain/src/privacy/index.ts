// Privacy: PII masked by shape before anything is stored; texts sealed with a per-user data key.
export * from './pii-masking';
export * from './sealing';
