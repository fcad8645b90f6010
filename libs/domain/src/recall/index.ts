// Recall: one pipeline (fuse → understand → rank → drop covered → assemble) fed by two candidate
// sources (today's index, the views of the past); what a memory is searched by, filters, the context block.
export * from './recall-pipeline';
export * from './recall-candidates';
export * from './follow-ups';
export * from './past-candidates';
export * from './searchable-text';
export * from './search-keys';
export * from './context-assembly';
export { memoriesAsOf, memoryAsOf, memoriesValidAt, memoryValidAt, versionsOf } from './as-of';
export * from './recall-filter';
export * from './learned-aliases';
