import { errors } from '@elastic/elasticsearch';
import { isElasticsearchOutage } from './elasticsearch-outages';

function answered(statusCode: number): errors.ResponseError {
  return new errors.ResponseError({ statusCode, body: { error: { type: 'x' } }, headers: {}, warnings: null, meta: {} as never });
}

describe('isElasticsearchOutage: the cluster is away, or the call is at fault', () => {
  it.each<[string, unknown]>([
    ['a refused or dropped connection', new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200')],
    ['a request unanswered in time', new errors.TimeoutError('Request timed out')],
    ['no living node', new errors.NoLivingConnectionsError('There are no living connections', {} as never)],
    ['429 too many requests', answered(429)],
    ['503 unavailable', answered(503)],
  ])('%s: an outage', (_name, error) => {
    expect(isElasticsearchOutage(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['400 a bad query', answered(400)],
    ['404 no such index', answered(404)],
    ['a plain error', new Error('boom')],
  ])('%s: the call', (_name, error) => {
    expect(isElasticsearchOutage(error)).toBe(false);
  });
});
