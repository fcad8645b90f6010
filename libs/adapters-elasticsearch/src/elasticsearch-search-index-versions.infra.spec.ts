import { Client } from '@elastic/elasticsearch';
import { searchIndexProbe, testProjectionVersions, uniqueSuffix, type VersionedBackend } from '@engram/testing';
import type { SearchIndex } from '@engram/ports';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index.adapter';
import { ElasticsearchSearchIndexVersions } from './elasticsearch-search-index-versions';

const node = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200';

/** A fresh alias per test; live readers use the alias (the pointer lives in Elasticsearch). */
async function backend(): Promise<VersionedBackend<SearchIndex>> {
  const alias = `engram-test-versions-${uniqueSuffix()}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const clients: Client[] = [];
  const open = async () => {
    const client = new Client({ node });
    clients.push(client);
    const versions = new ElasticsearchSearchIndexVersions({ client, alias, dimensions: 4 });
    const live = await ElasticsearchSearchIndex.open({ client, indexPrefix: alias, dimensions: 4, version: await versions.active() });
    return { versions, live };
  };
  const first = await open();
  return {
    ...first,
    reopen: open,
    settle: async (store) => {
      await (store as ElasticsearchSearchIndex).refresh();
    },
    close: async () => {
      for (const version of await first.versions.list())
        await new ElasticsearchSearchIndex({ client: clients[0], indexPrefix: alias, dimensions: 4, version }).drop();
      for (const client of clients) await client.close();
    },
  };
}

// Search indexes were `<prefix>-v1` behind the alias from the start: no unversioned store to carry over.
testProjectionVersions('Elasticsearch search', searchIndexProbe, backend, { testTimeoutMs: 60_000, hadUnversionedStore: false });
