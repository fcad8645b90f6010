export * from './elasticsearch-search-index.adapter';
