export * from './elasticsearch-search-index.adapter';
export * from './elasticsearch-search-index-versions';
