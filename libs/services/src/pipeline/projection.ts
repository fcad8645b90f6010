import type { EngramEvent, ProjectionName } from '@engram/contracts';

/**
 * What every projection is (facts, sessions, search, access): a store built from one topic of the
 * log (`PROJECTIONS` in the topology says which). Live stages, the offline rebuild, online rebuilds
 * and reprocessing all drive it through these three members.
 *
 * `apply` takes a batch in log order and ignores the events it does not project. Applying a batch
 * twice, or again after later ones, changes nothing (newest revision wins, turn ids and access
 * event ids are unique), which is what makes replays and at-least-once delivery safe: there is no
 * checkpoint to keep beside the data. `truncate` empties the store before a replay from the start.
 * A projection has no version of its own: versions are of its store (`ProjectionVersions`), and a
 * replay makes the projection over the version it builds.
 */
export interface Projection {
  readonly name: ProjectionName;
  apply(events: readonly EngramEvent[]): Promise<void>;
  truncate(): Promise<void>;
}
