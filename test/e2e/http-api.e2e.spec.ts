import { httpApiSuite } from '../support/suites/http-api.suite';

// The suite is shared with test/infra/http-api.infra.spec.ts, which runs it distributed.
httpApiSuite();
