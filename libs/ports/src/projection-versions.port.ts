import type { FactStore } from './fact-store.port';
import type { SearchIndex } from './search-index.port';
import type { SessionStore } from './session-store.port';

/**
 * Versioned projections. Each version of a projection is a complete store of
 * its own (a table, collection or index whose name carries the version) and a
 * pointer says which version readers and live writers use. A rebuild fills
 * version N+1 while N serves, then moves the pointer in one atomic write.
 *
 * Data written before versioning existed (unsuffixed names) is version 1.
 */
export const VERSIONED_PROJECTIONS = ['facts', 'sessions', 'search'] as const;
export type VersionedProjection = (typeof VERSIONED_PROJECTIONS)[number];

/** The versions of one projection, whose stores are of type `S` (FactStore, SessionStore, SearchIndex). */
export interface ProjectionVersions<S> {
  readonly projection: VersionedProjection;
  /** The version the pointer names: what readers and live writers use. 1 when the pointer was never moved. */
  active(): Promise<number>;
  /**
   * The store of one version, created empty if missing. Opening a version never
   * moves the pointer: readers do not see it until `activate`.
   */
  open(version: number): Promise<S>;
  /** Atomically points every reader and live writer at `version` (which must have been opened). */
  activate(version: number): Promise<void>;
  /** Deletes a version's data. Refuses the active version. */
  drop(version: number): Promise<void>;
  /** The versions whose data exists (opened and not dropped), ascending. */
  list(): Promise<number[]>;
  /** Activations made through this instance: followers in the same process refresh a cached pointer when it changes. */
  readonly activations?: number;
}

export const FactStoreVersions = Symbol('FactStoreVersions');
export const SessionStoreVersions = Symbol('SessionStoreVersions');
export const SearchIndexVersions = Symbol('SearchIndexVersions');

/** What a rebuild in progress has persisted, so that a restarted process resumes it. */
export interface RebuildRecord {
  readonly projection: VersionedProjection;
  /** The version being built. */
  readonly version: number;
  /** The version that served when the rebuild started (dropped after the grace period). */
  readonly previousVersion: number;
  /** The rebuild's own consumer group: its committed offsets are the rebuild's checkpoint. */
  readonly group: string;
  readonly phase: RebuildPhase;
  readonly startedAt: string;
  readonly swappedAt?: string;
  readonly finishedAt?: string;
  /** Messages applied to the new version, as of the last update of the record. */
  readonly done?: number;
  readonly error?: string;
  /** Set when the version was built by `engram reprocess` (re-decided from the turns), not replayed from memory.facts.v1. */
  readonly reprocess?: ReprocessLineage;
}

/**
 * Where a reprocessed version's decisions are: the run's own topic (every
 * decision the reprocess made, carried-over memories included), then, from the
 * switch on, the live memory.facts.v1. Replaying exactly that reproduces the version.
 */
export interface ReprocessLineage {
  readonly runId: string;
  /** The run's decisions topic (deployment prefix included). */
  readonly topic: string;
  readonly extractorVersion: string;
  /** 'beginning', or the ISO instant before which memories were carried over as they stood. */
  readonly from: string;
  /** The facts and search versions the run built. */
  readonly factsVersion: number;
  readonly searchVersion: number;
  /** memory.facts.v1's end when the version was activated: later live decisions belong to it, earlier ones do not. */
  readonly switchPosition?: Readonly<Record<number, number>>;
}

/** replaying → swapped (new version serves, overlap still applied, old kept for the grace period) → done; or failed. */
export type RebuildPhase = 'replaying' | 'swapped' | 'done' | 'failed';

/** The persisted records of rebuilds: one per (projection, version). */
export const RebuildLedger = Symbol('RebuildLedger');
export interface RebuildLedger {
  save(record: RebuildRecord): Promise<void>;
  list(): Promise<RebuildRecord[]>;
}

/** The methods of each versioned port, which a follower forwards (nothing else: frameworks probe objects for hooks). */
export const VERSIONED_METHODS = {
  facts: ['save', 'get', 'findByMergeKeys', 'list', 'select', 'glossing', 'listUsers', 'deleteUser', 'users', 'usersOf', 'truncate'],
  sessions: ['append', 'recent', 'turnIds', 'turnsById', 'previousSession', 'countUser', 'deleteUser', 'truncate'],
  search: ['upsert', 'searchText', 'searchVector', 'revisions', 'countUser', 'deleteUser', 'truncate'],
} as const satisfies Record<VersionedProjection, readonly string[]>;

/** Each port's methods that VERSIONED_METHODS leaves out: none, or a follower would lack them (the compiler names them here). */
type Unlisted<Port, Listed extends readonly string[]> = Exclude<keyof Port, Listed[number]>;
const everyMethodListed: Record<
  | Unlisted<FactStore, typeof VERSIONED_METHODS.facts>
  | Unlisted<SessionStore, typeof VERSIONED_METHODS.sessions>
  | Unlisted<SearchIndex, typeof VERSIONED_METHODS.search>,
  never
> = {};
void everyMethodListed;

/**
 * A store that always delegates to the active version: the binding live code
 * (recall, the resolver, stage handlers) uses. Every method of the ports it
 * wraps is async, so each call first resolves the pointer. `maxAgeMs` caches the
 * pointer that long (a remote pointer costs a round trip); 0 reads it on every
 * call. An activation through the same `versions` object is seen at once.
 */
export function followActiveVersion<S extends object>(versions: ProjectionVersions<S>, options: { maxAgeMs?: number } = {}): S {
  const maxAgeMs = options.maxAgeMs ?? 0;
  let cached: { version: number; at: number; activations: number | undefined } | undefined;
  const current = async (): Promise<S> => {
    const now = Date.now();
    const activations = versions.activations;
    if (!cached || maxAgeMs <= 0 || now - cached.at >= maxAgeMs || cached.activations !== activations) {
      cached = { version: await versions.active(), at: now, activations };
    }
    return versions.open(cached.version);
  };
  const follower: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of VERSIONED_METHODS[versions.projection]) {
    follower[name] = async (...args: unknown[]) => {
      const store = (await current()) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return store[name](...args);
    };
  }
  return follower as unknown as S;
}
