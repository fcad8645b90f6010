export * from './elasticsearch-search-index.adapter';
export * from './elasticsearch-search-index-versions';
export { documentId } from './elasticsearch-documents';
export type { ElasticsearchSearchIndexOptions } from './elasticsearch-options';
export * from './elasticsearch-search.factory';
export { VisibleSearchIndex } from './elasticsearch-visible-index';
export { VisibleVersions } from './elasticsearch-visible-versions';
export * from './elasticsearch-outages';
