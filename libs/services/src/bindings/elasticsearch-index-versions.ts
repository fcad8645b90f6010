import { ElasticsearchSearchIndex } from '@engram/adapters-elasticsearch';
import type { SearchIndexVersion, SearchIndexVersions } from '../pipeline/online-search-rebuild';
import { VisibleSearchIndex } from './visible-search-index';

/**
 * Search index versions in Elasticsearch: `<prefix>-v<n>` behind the alias
 * `<prefix>`. The next version is created next to the one the alias points at,
 * on the live adapter's client (never closed here), and written directly until
 * `activate()` moves the alias in one atomic update.
 */
export class ElasticsearchIndexVersions implements SearchIndexVersions {
  constructor(
    private readonly live: ElasticsearchSearchIndex,
    private readonly dimensions: number,
  ) {}

  private version(version: number): ElasticsearchSearchIndex {
    return new ElasticsearchSearchIndex({
      client: this.live.client,
      indexPrefix: this.live.alias,
      dimensions: this.dimensions,
      version,
      activate: false,
    });
  }

  async createNext(): Promise<SearchIndexVersion> {
    const previousVersion = await this.live.activeVersion();
    const version = (previousVersion ?? 0) + 1;
    const next = this.version(version);
    // Not aliased (the alias points at `previousVersion`): a leftover of a failed rebuild, never served.
    await next.drop();
    await next.init();
    return {
      version,
      previousVersion,
      // Refreshes after every batch: once the alias points here, the live indexer's `after` contract holds for it too.
      index: new VisibleSearchIndex(next),
      activate: () => next.activate(),
      dropPrevious: async () => {
        if (previousVersion !== undefined) await this.version(previousVersion).drop();
      },
      discard: () => next.drop(),
      close: () => next.close(),
    };
  }
}
