// The search backend on Elasticsearch as a process starts it: everything between "an address and
// the embedder's dimensions" and "an index that serves", so the binding is one line.
import type { OutageObserver, SearchBackendAdapters } from '@engram/ports';
import { withElasticsearchOutages } from './elasticsearch-outages';
import { countRequests } from './elasticsearch-requests';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';
import { ElasticsearchSearchIndexVersions } from './elasticsearch-search-index-versions';
import { VisibleSearchIndex } from './elasticsearch-visible-index';
import { VisibleVersions } from './elasticsearch-visible-versions';

export interface ElasticsearchSearchOptions {
  /** Node URL, e.g. `http://127.0.0.1:9200`. */
  readonly node: string;
  /** The alias; versions are the indexes `<prefix>-v<n>`. */
  readonly indexPrefix: string;
  /** The embedder's vector length (the `dense_vector` dimensions). */
  readonly dimensions: number;
  /** How long one attempt of a request may take; a request is tried at most twice. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Hears of every outage and answer of the cluster (the dependency monitor). */
  readonly observer?: OutageObserver;
  /** Told of every request sent to the cluster once started, by `requestOperation` (`POST /{index}/_bulk`): what the index costs. */
  readonly onRequest?: (operation: string) => void;
}

/**
 * Connects, serves the version the alias points at (an online rebuild may have moved it past 1;
 * version 1 when there is no alias yet) and creates its index if missing, before resolving: a
 * process that starts can search. Writes are refreshed per batch (`VisibleSearchIndex`), and so are
 * those of the versions a rebuild fills. Rejects, the client closed, when the cluster does not answer
 * at start; once started, a cluster that is away makes calls fail with `DependencyUnavailableError`.
 */
export async function openElasticsearchSearch(options: ElasticsearchSearchOptions): Promise<SearchBackendAdapters> {
  // A node that is away or hung fails a request in bounded time: at most two attempts of requestTimeoutMs.
  const clientOptions = { requestTimeout: options.requestTimeoutMs ?? 10_000, maxRetries: 1 };
  const settings = { node: options.node, indexPrefix: options.indexPrefix, dimensions: options.dimensions, clientOptions };
  const probe = new ElasticsearchSearchIndex(settings);
  const version = await probe.activeVersion().catch(() => undefined);
  await probe.close().catch(() => undefined);
  const index = new ElasticsearchSearchIndex({ ...settings, version: version ?? 1 });
  if (options.onRequest) countRequests(index.client, options.onRequest);
  try {
    await index.init();
  } catch (error) {
    await index.close().catch(() => undefined);
    throw error;
  }
  // Versions are `<prefix>-v<n>` indexes; the alias is the pointer (live readers use it, so
  // Elasticsearch resolves it on every request).
  const versions = new ElasticsearchSearchIndexVersions({ client: index.client, alias: index.alias, dimensions: options.dimensions });
  // An unreachable or silent cluster is an outage (DependencyUnavailableError 'elasticsearch'): stages pause, recall answers without it.
  return {
    index: withElasticsearchOutages(new VisibleSearchIndex(index), options.observer),
    versions: withElasticsearchOutages(new VisibleVersions(versions), options.observer),
  };
}
