import { replaySuite } from '../support/suites/replay.suite';

// The suite is shared with test/infra/replay.infra.spec.ts, which runs it distributed.
replaySuite();
