import { requestOperation } from './elasticsearch-requests';

describe('requestOperation: a request named without its index, alias or id', () => {
  it.each<[string, string, string]>([
    ['POST', '/engram-memories/_bulk', 'POST /{index}/_bulk'],
    ['post', '/_bulk', 'POST /_bulk'],
    ['POST', '/engram-it-1a2b-memories/_refresh', 'POST /{index}/_refresh'],
    ['POST', '/engram-memories/_search?routing=t%3Au', 'POST /{index}/_search'],
    ['GET', '/_alias/engram-memories', 'GET /_alias/{name}'],
    ['PUT', '/_index_template/engram-memories-v2', 'PUT /_index_template/{name}'],
    ['PUT', '/engram-memories-v1', 'PUT /{index}'],
    ['GET', '/engram-memories/_doc/t:u:m1', 'GET /{index}/_doc/{name}'],
    ['GET', '/', 'GET /'],
  ])('%s %s → %s', (method, path, operation) => {
    expect(requestOperation(method, path)).toBe(operation);
  });
});
