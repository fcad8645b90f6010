export * from './json-post';
