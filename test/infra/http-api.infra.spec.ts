import { httpApiSuite } from '../support/suites/http-api.suite';

/**
 * The embedded HTTP end-to-end suite, unchanged, against real Kafka, MongoDB
 * (FerretDB) and Elasticsearch: every test gets its own topics, consumer
 * groups, database and indices, deleted afterwards.
 */
jest.setTimeout(120_000);

httpApiSuite('distributed');
