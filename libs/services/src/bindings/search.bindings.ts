import type { FactoryProvider } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { ElasticsearchOptions, SearchBackend } from '@engram/config';
import { sqliteSearchIndexVersions } from '@engram/adapters-sqlite';
import { ElasticsearchSearchIndex, ElasticsearchSearchIndexVersions } from '@engram/adapters-elasticsearch';
import { Embedder, followActiveVersion, ProjectionVersions, SearchIndex, SearchIndexVersions } from '@engram/ports';
import { SQLITE_DATABASE } from './databases';
import { VisibleSearchIndex } from './visible-search-index';
import { VisibleVersions } from './visible-versions';

/** The search index port (ENGRAM_SEARCH): the live index and its versions (online rebuilds, reprocessing). */
export function searchProviders(backend: SearchBackend): FactoryProvider[] {
  return backend === 'sqlite' ? sqliteSearch : elasticsearchSearch;
}

/** FTS5 and vectors in the SQLite file, versioned like the fact store's tables (a pointer row read per call). */
const sqliteSearch: FactoryProvider[] = [
  { provide: SearchIndexVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteSearchIndexVersions(db) },
  { provide: SearchIndex, inject: [SearchIndexVersions], useFactory: (v: ProjectionVersions<SearchIndex>) => followActiveVersion(v) },
];

const elasticsearchSearch: FactoryProvider[] = [
  {
    provide: SearchIndex,
    inject: [ElasticsearchOptions, Embedder],
    useFactory: async (elasticsearch: ElasticsearchOptions, embedder: Embedder): Promise<SearchIndex> => {
      const options = { node: elasticsearch.url, indexPrefix: elasticsearch.indexPrefix, dimensions: embedder.dimensions };
      // Serve the version the alias points at (an online rebuild may have moved it past 1).
      const probe = new ElasticsearchSearchIndex(options);
      const version = await probe.activeVersion().catch(() => undefined);
      await probe.close().catch(() => undefined);
      const index = new ElasticsearchSearchIndex({ ...options, version: version ?? 1 });
      try {
        await index.init();
      } catch (error) {
        await index.close().catch(() => undefined);
        throw new Error(
          `Elasticsearch at ELASTICSEARCH_URL=${elasticsearch.url}: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        );
      }
      return new VisibleSearchIndex(index);
    },
  },
  // Versions are `<prefix>-v<n>` indexes; the alias is the pointer (live readers use it, so
  // Elasticsearch resolves it on every request). Versions are written with a refresh per batch.
  {
    provide: SearchIndexVersions,
    inject: [SearchIndex, Embedder],
    useFactory: (index: VisibleSearchIndex, embedder: Embedder) =>
      new VisibleVersions(
        new ElasticsearchSearchIndexVersions({ client: index.inner.client, alias: index.inner.alias, dimensions: embedder.dimensions }),
      ),
  },
];
