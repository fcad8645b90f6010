import { Inject, Injectable, Optional } from '@nestjs/common';
import { ProjectionName, PROJECTIONS } from '@engram/contracts';
import {
  Embedder,
  FactStore,
  FactStoreVersions,
  Lexicon,
  ProjectionVersions,
  SearchIndex,
  SearchIndexVersions,
  SessionStore,
  SessionStoreVersions,
  VersionedProjection,
} from '@engram/ports';
import { EventPublisher } from '../pipeline/event-publisher';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { FactsProjection } from '../pipeline/facts.projection';
import type { Projection } from '../pipeline/projection';
import { SearchProjection } from '../pipeline/search.projection';
import { SessionsProjection } from '../pipeline/sessions.projection';

/**
 * The projections as replays see them, in one place: each one's input topic as this deployment
 * names it (from the topology's `PROJECTIONS`), the versions of each versioned projection's store,
 * and the projection class over one of those versions (the same classes the live stages use).
 * Online rebuilds and reprocessing build new versions through it.
 */
@Injectable()
export class ReplayProjections {
  constructor(
    @Inject(FactStoreVersions) readonly facts: ProjectionVersions<FactStore>,
    @Inject(SessionStoreVersions) readonly sessions: ProjectionVersions<SessionStore>,
    @Inject(SearchIndexVersions) readonly search: ProjectionVersions<SearchIndex>,
    @Inject(Embedder) private readonly embedder: Embedder,
    private readonly publisher: EventPublisher,
    /** The process's alias tables: the search projection indexes canonical names. */
    @Optional() readonly aliases: EntityAliases = new EntityAliases(),
    /** What the search projection indexes Chinese words' English by: the live projection's. */
    @Optional() @Inject(Lexicon) private readonly lexicon?: Lexicon,
  ) {}

  /** The projection's input topic as this deployment names it. */
  topic(projection: ProjectionName): string {
    return this.publisher.topic(PROJECTIONS[projection].input);
  }

  versions(projection: VersionedProjection): ProjectionVersions<object> {
    switch (projection) {
      case 'facts':
        return this.facts;
      case 'sessions':
        return this.sessions;
      case 'search':
        return this.search;
    }
  }

  /** The projection writing one version's store (as `versions(projection).open(version)` returns it). */
  over(projection: VersionedProjection, store: object): Projection {
    switch (projection) {
      case 'facts':
        return new FactsProjection(store as FactStore);
      case 'sessions':
        return new SessionsProjection(store as SessionStore);
      case 'search':
        return new SearchProjection(store as SearchIndex, this.embedder, this.aliases, this.lexicon);
    }
  }
}
