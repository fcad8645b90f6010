export * from './envelope';
export * from './events';
export * from './event-schemas';
export * from './ids';
export * from './memory';
export * from './topics';
