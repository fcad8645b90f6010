// When an Elasticsearch call failed because the cluster is away, not because of the call.
import { errors } from '@elastic/elasticsearch';
import { type OutageObserver, reportingOutages } from '@engram/ports';

/** Statuses that mean "later": too many requests queued, a proxy without its node, a node not ready. */
const LATER_STATUSES = new Set([429, 502, 503, 504]);

/**
 * An outage of Elasticsearch: a node that refuses or drops the connection, a request unanswered
 * within ELASTICSEARCH_REQUEST_TIMEOUT_MS, no living node left in the pool, or an answer that says
 * "later". Any other answer (a 400 for a bad query, a 404, a mapping conflict) is the call's own fault.
 */
export function isElasticsearchOutage(error: unknown): boolean {
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
    return true;
  }
  return error instanceof errors.ResponseError && LATER_STATUSES.has(error.meta.statusCode ?? 0);
}

/** An Elasticsearch index whose outages are `DependencyUnavailableError('elasticsearch')`: stages pause on them, recall answers without it. */
export function withElasticsearchOutages<T extends object>(target: T, observer?: OutageObserver): T {
  return reportingOutages(target, 'elasticsearch', isElasticsearchOutage, observer);
}
