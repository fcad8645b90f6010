import { reprocessSuite } from '../support/suites/reprocess.suite';

/**
 * The reprocess suite, unchanged, on Kafka, MongoDB (FerretDB) and Elasticsearch: the new
 * versions are `facts_v2` collections and a `-v2` index, the run's decisions a Kafka topic.
 */
jest.setTimeout(240_000);

reprocessSuite('distributed');
