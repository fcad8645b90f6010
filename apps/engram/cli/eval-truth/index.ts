/**
 * `engram eval-truth`: does recall tell what is true *now*? Scenarios of turns over days and sessions
 * (changes of mind, standing constraints, duplicates, temporary states, references, other languages),
 * each with checks: a query asked at a time, what its context block must contain and what it must not
 * present as current. dataset.ts (the JSON-lines format), scoring.ts (one check against a context
 * block), runner.ts (the replay in time order on an embedded engram with a moving clock), command.ts.
 */
export { parseTruthDataset } from './dataset';
export { isHistoryLine, scoreCheck } from './scoring';
export { summarise, type CheckResult } from './runner';
export { registerTruthEvalCommand } from './command';
