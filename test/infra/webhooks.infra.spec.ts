import { webhooksSuite } from '../support/suites/webhooks.suite';

/** The webhooks suite against real Kafka, MongoDB (FerretDB) and Elasticsearch. */
jest.setTimeout(120_000);

webhooksSuite('distributed');
