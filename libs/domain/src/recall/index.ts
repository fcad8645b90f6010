// Recall: what a memory is searched by, filters, views of the past, and the context block.
export * from './search-keys';
export * from './context-assembly';
export { memoriesAsOf, memoryAsOf, memoriesValidAt, memoryValidAt, versionsOf } from './as-of';
export * from './recall-filter';
