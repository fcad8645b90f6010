import type { ProjectionVersions } from './projection-versions.port';
import type { SearchIndex } from './search-index.port';

/**
 * What a search backend library gives a process once started: the live index (the SearchIndex
 * port) and its versions (online rebuilds, reprocessing). Each backend exports one factory that
 * returns it with its own start-up done (connected, the index created, the version serving found),
 * so binding a backend is one line (`libs/services/src/bindings/search.bindings.ts`).
 */
export interface SearchBackendAdapters {
  readonly index: SearchIndex;
  readonly versions: ProjectionVersions<SearchIndex>;
}
