import { reprocessSuite } from '../support/suites/reprocess.suite';

/** `engram reprocess`, `diff-projections` and activation on SQLite (see the suite). */
jest.setTimeout(60_000);

reprocessSuite('embedded');
