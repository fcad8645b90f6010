import type { ConsumedMessage, RebuildLedger, RebuildRecord, ReprocessLineage } from '@engram/ports';
import { fromPosition, isReprocessRun, lineageToRebuild, reprocessedSources, reprocessLineageOf } from './lineage';
import { parseMessages } from './parse-messages';
import { RebuildConflict } from './rebuild-status';

const FACTS = 'memory.facts.v1';
const RUN: ReprocessLineage = {
  runId: 'v2-run',
  topic: 'memory.reprocess.v2-run',
  extractorVersion: 'rules-10',
  from: 'beginning',
  factsVersion: 2,
  searchVersion: 3,
};
const SWITCHED: ReprocessLineage = { ...RUN, switchPosition: { 0: 5, 1: 7 } };

function record(changes: Partial<RebuildRecord>): RebuildRecord {
  return { projection: 'facts', version: 2, previousVersion: 1, group: 'g', phase: 'done', startedAt: '2026-12-01T00:00:00Z', ...changes };
}
const ledgerOf = (...records: RebuildRecord[]): RebuildLedger => ({ list: async () => records }) as unknown as RebuildLedger;
const message = (partition: number, offset: number, value: unknown = {}, shredded = false): ConsumedMessage => ({
  topic: FACTS,
  partition,
  offset,
  key: 'k',
  value,
  raw: '',
  timestamp: 0,
  ...(shredded ? { shredded } : {}),
});

describe('which part of the log a version holds', () => {
  it('is the run topic, then memory.facts.v1 from the switch once activated; the live part alone for the overlap', () => {
    expect(reprocessedSources(RUN, FACTS)).toEqual([{ topic: RUN.topic, skipBelow: {} }]);
    expect(reprocessedSources(SWITCHED, FACTS)).toEqual([
      { topic: RUN.topic, skipBelow: {} },
      { topic: FACTS, skipBelow: { 0: 5, 1: 7 } },
    ]);
    expect(reprocessedSources(SWITCHED, FACTS, { liveOnly: true })).toEqual([{ topic: FACTS, skipBelow: { 0: 5, 1: 7 } }]);
  });

  it('counts messages from the switch on, per partition', () => {
    const kept = fromPosition([message(0, 4), message(0, 5), message(1, 6), message(1, 9), message(2, 0)], { 0: 5, 1: 7 });
    expect(kept.map((m) => `${m.partition}:${m.offset}`)).toEqual(['0:5', '1:9', '2:0']);
  });

  it('is a reprocess lineage only for a version that serves or served (done, swapped), whichever built it', async () => {
    const ledger = ledgerOf(
      record({ version: 2, reprocess: SWITCHED }),
      record({ version: 3, phase: 'swapped', reprocess: SWITCHED }),
      record({ version: 4, phase: 'replaying', reprocess: SWITCHED }),
    );
    expect(await reprocessLineageOf(ledger, 'facts', 2)).toBe(SWITCHED);
    expect(await reprocessLineageOf(ledger, 'facts', 3)).toBe(SWITCHED);
    expect(await reprocessLineageOf(ledger, 'facts', 4)).toBeUndefined();
    expect(await reprocessLineageOf(ledger, 'search', 2)).toBeUndefined();
  });

  it("tells a run's own records from later rebuilds carrying its lineage", () => {
    expect(isReprocessRun(record({ version: 2, reprocess: RUN }))).toBe(true);
    expect(isReprocessRun(record({ projection: 'search', version: 3, reprocess: RUN }))).toBe(true);
    expect(isReprocessRun(record({ version: 5, reprocess: RUN }))).toBe(false);
    expect(isReprocessRun(record({ version: 2 }))).toBe(false);
  });

  it('lets an online rebuild replay an activated lineage, and refuses one waiting for activation or without a switch', async () => {
    expect(await lineageToRebuild(ledgerOf(record({ version: 2, reprocess: SWITCHED })), 'facts', 2)).toBe(SWITCHED);
    expect(await lineageToRebuild(ledgerOf(record({ version: 2, reprocess: SWITCHED })), 'sessions', 2)).toBeUndefined();
    await expect(lineageToRebuild(ledgerOf(record({ version: 2, reprocess: RUN })), 'facts', 1)).rejects.toThrow(
      /facts@2 holds reprocess run v2-run \(done\): activate or drop it first/,
    );
    await expect(lineageToRebuild(ledgerOf(record({ version: 2, reprocess: RUN })), 'facts', 2)).rejects.toBeInstanceOf(RebuildConflict);
  });
});

describe('parsing a replayed batch', () => {
  it('leaves out shredded messages silently and invalid ones through onInvalid, in log order', () => {
    const invalid: number[] = [];
    const events = parseMessages([message(0, 0, { nonsense: true }), message(0, 1, {}, true)], (m) => invalid.push(m.offset));
    expect(events).toEqual([]);
    expect(invalid).toEqual([0]);
  });
});
