import { replaySuite } from '../support/suites/replay.suite';

/** Rebuild, rebuild twice and restart, on Kafka, MongoDB (FerretDB) and Elasticsearch. */
jest.setTimeout(180_000);

replaySuite('distributed');
