import type { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';
import type { ProjectionVersions, SearchIndex } from '@engram/ports';
import { VisibleSearchIndex } from './elasticsearch-visible-index';

/**
 * Elasticsearch search versions whose stores refresh after every batch, like
 * the live index: once the alias points at a rebuilt version, recall's `after`
 * contract holds for what the rebuild wrote too.
 */
export class VisibleVersions implements ProjectionVersions<SearchIndex> {
  readonly projection = 'search' as const;
  private readonly visible = new Map<number, VisibleSearchIndex>();

  constructor(private readonly inner: ProjectionVersions<ElasticsearchSearchIndex>) {}

  get activations(): number | undefined {
    return this.inner.activations;
  }

  active(): Promise<number> {
    return this.inner.active();
  }

  async open(version: number): Promise<SearchIndex> {
    const index = await this.inner.open(version);
    let visible = this.visible.get(version);
    if (!visible || visible.inner !== index) this.visible.set(version, (visible = new VisibleSearchIndex(index)));
    return visible;
  }

  activate(version: number): Promise<void> {
    return this.inner.activate(version);
  }

  async drop(version: number): Promise<void> {
    this.visible.delete(version);
    await this.inner.drop(version);
  }

  list(): Promise<number[]> {
    return this.inner.list();
  }
}
