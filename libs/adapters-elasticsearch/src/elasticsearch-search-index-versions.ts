import type { Client } from '@elastic/elasticsearch';
import type { ProjectionVersions } from '@engram/ports';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';

export interface ElasticsearchSearchIndexVersionsOptions {
  readonly client: Client;
  /** The alias readers use; versions are `<alias>-v<n>`. */
  readonly alias: string;
  readonly dimensions: number;
}

/**
 * Search index versions in Elasticsearch: `<alias>-v<n>` indexes behind the
 * alias, which is the pointer (moved in one atomic alias update). Stores opened
 * here read and write their own index by name, never the alias, and share the
 * caller's client (never closed here). A store using the alias follows the
 * pointer on the server, so live readers need no wrapper.
 */
export class ElasticsearchSearchIndexVersions implements ProjectionVersions<ElasticsearchSearchIndex> {
  readonly projection = 'search' as const;
  activations = 0;
  private readonly stores = new Map<number, Promise<ElasticsearchSearchIndex>>();

  constructor(private readonly options: ElasticsearchSearchIndexVersionsOptions) {}

  private index(version: number): ElasticsearchSearchIndex {
    return new ElasticsearchSearchIndex({
      client: this.options.client,
      indexPrefix: this.options.alias,
      dimensions: this.options.dimensions,
      version,
      activate: false,
    });
  }

  async active(): Promise<number> {
    return (await this.index(1).activeVersion()) ?? 1;
  }

  open(version: number): Promise<ElasticsearchSearchIndex> {
    let store = this.stores.get(version);
    if (!store) {
      const index = this.index(version);
      store = index.init().then(() => index);
      this.stores.set(version, store);
      store.catch(() => this.stores.delete(version));
    }
    return store;
  }

  async activate(version: number): Promise<void> {
    await (await this.open(version)).activate();
    this.activations++;
  }

  async drop(version: number): Promise<void> {
    if ((await this.index(1).activeVersion()) === version)
      throw new Error(`search version ${version} is active: activate another one before dropping it`);
    this.stores.delete(version);
    await this.index(version).drop();
  }

  async list(): Promise<number[]> {
    const prefix = `${this.options.alias}-v`;
    const indices = await this.options.client.indices.get({ index: `${prefix}*`, ignore_unavailable: true, allow_no_indices: true });
    return Object.keys(indices)
      .map((name) => Number(name.slice(prefix.length)))
      .filter((v) => Number.isInteger(v) && v > 0)
      .sort((a, b) => a - b);
  }
}
