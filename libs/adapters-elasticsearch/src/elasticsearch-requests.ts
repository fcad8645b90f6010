// What an Elasticsearch client costs, request by request: each request the client sends, named by
// its method and path pattern, for a metric whose labels must stay few.
import type { Client } from '@elastic/elasticsearch';

/**
 * `POST /{index}/_bulk`, `GET /_alias/{name}`: the method, and the path with its Elasticsearch
 * endpoints (`_bulk`, `_search`, `_refresh`…) kept and every name (index, alias, id, template)
 * replaced by `{index}` when it comes first, else `{name}`, so no index or document id becomes a label.
 */
export function requestOperation(method: string, path: string): string {
  const segments = path
    .split('?')[0]
    .split('/')
    .filter((segment) => segment !== '');
  const pattern = segments.map((segment, i) => (segment.startsWith('_') ? segment : i === 0 ? '{index}' : '{name}'));
  return `${method.toUpperCase()} /${pattern.join('/')}`;
}

/** Calls `onRequest` once per request the client sends (each attempt of a retried one), named by `requestOperation`. */
export function countRequests(client: Client, onRequest: (operation: string) => void): void {
  client.diagnostic.on('request', (error, event) => {
    // An error here was thrown before anything was sent (serialising the body): no request.
    const params = event?.meta.request.params;
    if (error || !params) return;
    onRequest(requestOperation(params.method, params.path));
  });
}
