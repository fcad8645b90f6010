import type { ConsumedMessage, LogPosition, RebuildLedger, RebuildRecord, ReprocessLineage, VersionedProjection } from '@engram/ports';
import { RebuildConflict } from './rebuild-status';

/**
 * Which part of the log a projection version holds. A version replayed from its input topic holds
 * that topic from the start. A facts or search version built by `engram reprocess` (and any later
 * rebuild of it, online or offline) holds its run's lineage instead: the run's decisions topic in
 * full, then memory.facts.v1 from the switch position on. These are the rules every replay
 * (`Rebuilder`, `OnlineRebuilds`, `Reprocessor`) reads a version's sources by.
 */

/**
 * The lineage of a projection version, when a reprocess built it or an online
 * rebuild replayed one that a reprocess built (its record carries the same
 * lineage: the run's topic and switch position are what the version holds,
 * whichever version number it has). A version still in its rebuild's grace
 * period (`swapped`) already serves and has its lineage too.
 */
export async function reprocessLineageOf(
  ledger: RebuildLedger,
  projection: VersionedProjection,
  version: number,
): Promise<ReprocessLineage | undefined> {
  const record = (await ledger.list()).find((r) => r.projection === projection && r.version === version);
  return record?.phase === 'done' || record?.phase === 'swapped' ? record.reprocess : undefined;
}

/**
 * True for the records a reprocess run writes for the versions it builds; false
 * for an online rebuild of a reprocessed version, which carries the run's lineage
 * (whose `factsVersion`/`searchVersion` keep naming the run's versions) under a
 * later version number.
 */
export function isReprocessRun(record: RebuildRecord): record is RebuildRecord & { readonly reprocess: ReprocessLineage } {
  const lineage = record.reprocess;
  return lineage !== undefined && record.version === (record.projection === 'facts' ? lineage.factsVersion : lineage.searchVersion);
}

/** A topic a replay reads, and from where on each partition its messages count. */
export interface ReplaySource {
  readonly topic: string;
  readonly skipBelow: LogPosition;
}

/**
 * Where a reprocessed version's decisions are, in replay order: the run's topic
 * in full (fixed once the run finished), then memory.facts.v1 from the switch
 * position on (earlier messages of each partition are skipped: see `fromPosition`).
 */
export function reprocessedSources(lineage: ReprocessLineage, factsTopic: string, options: { liveOnly?: boolean } = {}): ReplaySource[] {
  const sources: ReplaySource[] = options.liveOnly ? [] : [{ topic: lineage.topic, skipBelow: {} }];
  // Not activated yet: nothing live belongs to it.
  if (lineage.switchPosition) sources.push({ topic: factsTopic, skipBelow: lineage.switchPosition });
  return sources;
}

/** The messages at or after `position` on their partition. */
export function fromPosition(messages: readonly ConsumedMessage[], position: LogPosition): ConsumedMessage[] {
  return messages.filter((m) => m.offset >= (position[m.partition] ?? 0));
}

/**
 * The lineage an online rebuild's new version replays when the serving one was built by a
 * reprocess (undefined: the input topic from the start). A rebuild would drop a
 * reprocessed version still waiting for activation (it takes the next number):
 * refuse, and say what to do.
 */
export async function lineageToRebuild(
  ledger: RebuildLedger,
  projection: VersionedProjection,
  active: number,
): Promise<ReprocessLineage | undefined> {
  if (projection === 'sessions') return undefined;
  for (const r of await ledger.list()) {
    if (r.projection !== projection || !r.reprocess || r.phase === 'failed') continue;
    if (r.version > active) {
      throw new RebuildConflict(
        projection,
        `${projection}@${r.version} holds reprocess run ${r.reprocess.runId} (${r.phase}): activate or drop it first (engram projections activate|drop ${projection}@${r.version})`,
      );
    }
  }
  const lineage = await reprocessLineageOf(ledger, projection, active);
  if (lineage && !lineage.switchPosition) {
    // Activation moves the pointers, then records the switch: it stopped in between.
    throw new RebuildConflict(
      projection,
      `${projection}@${active} of reprocess run ${lineage.runId} serves without a recorded switch position: activate it again (engram projections activate facts@${lineage.factsVersion})`,
    );
  }
  return lineage;
}
