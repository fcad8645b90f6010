import { webhooksSuite } from '../support/suites/webhooks.suite';

// The suite is shared with test/infra/webhooks.infra.spec.ts, which runs it distributed.
webhooksSuite();
