import type { FactoryProvider } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { ElasticsearchOptions, SearchBackend, SqliteOptions } from '@engram/config';
import { sqliteSearch } from '@engram/adapters-sqlite';
import { openElasticsearchSearch } from '@engram/adapters-elasticsearch';
import { Embedder, SearchBackendAdapters, SearchIndex, SearchIndexVersions } from '@engram/ports';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { EngramMetrics } from '../observability/metrics';
import { SQLITE_DATABASE } from './databases';

/** The started backend, whose index and versions the two port tokens provide. */
const SEARCH_BACKEND = Symbol('SearchBackendAdapters');

/**
 * The search index port (ENGRAM_SEARCH): the live index and its versions (online rebuilds,
 * reprocessing). A backend is its library's factory, which does its own start-up; a new backend
 * is a new library and one line here (the compiler asks for it once `SearchBackend` names it).
 */
const BACKENDS: Readonly<Record<SearchBackend, FactoryProvider<SearchBackendAdapters | Promise<SearchBackendAdapters>>>> = {
  sqlite: {
    provide: SEARCH_BACKEND,
    inject: [SQLITE_DATABASE, SqliteOptions],
    useFactory: (db: Database, sqlite: SqliteOptions) => sqliteSearch(db, { vectorCacheBytes: sqlite.vectorCacheBytes }),
  },
  elasticsearch: {
    provide: SEARCH_BACKEND,
    inject: [ElasticsearchOptions, Embedder, DependencyMonitor, EngramMetrics],
    useFactory: (es: ElasticsearchOptions, embedder: Embedder, monitor: DependencyMonitor, metrics: EngramMetrics) =>
      openElasticsearchSearch({
        node: es.url,
        indexPrefix: es.indexPrefix,
        dimensions: embedder.dimensions,
        requestTimeoutMs: es.requestTimeoutMs,
        observer: monitor,
        onRequest: (operation) => metrics.countStoreRequest('elasticsearch', operation),
      }).catch(startFailed('Elasticsearch', 'ELASTICSEARCH_URL', es.url)),
  },
};

export function searchProviders(backend: SearchBackend): FactoryProvider[] {
  return [
    BACKENDS[backend],
    { provide: SearchIndex, inject: [SEARCH_BACKEND], useFactory: (search: SearchBackendAdapters) => search.index },
    { provide: SearchIndexVersions, inject: [SEARCH_BACKEND], useFactory: (search: SearchBackendAdapters) => search.versions },
  ];
}

/** A backend that does not start stops the process naming the variable that points at it. */
function startFailed(backend: string, variable: string, value: string): (error: unknown) => never {
  return (error) => {
    throw new Error(`${backend} at ${variable}=${value}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  };
}
