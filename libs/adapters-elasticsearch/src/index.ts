export * from './elasticsearch-search-index.adapter';
export * from './elasticsearch-search-index-versions';
export { documentId } from './elasticsearch-documents';
export type { ElasticsearchSearchIndexOptions } from './elasticsearch-options';
