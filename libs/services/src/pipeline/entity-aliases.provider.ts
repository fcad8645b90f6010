import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityAliasOptions, entityAliasesSource } from '@engram/config';
import type { FactStore } from '@engram/ports';
import {
  type AliasSource,
  buildAliasTable,
  DEFAULT_ALIAS_MIN_SEEN,
  DEFAULT_ENTITY_ALIASES,
  defaultAliasTable,
  EntityAliasTable,
  learnedAliasTable,
  parseAliasEntries,
} from '@engram/domain';

/**
 * The configured alias table: built-in defaults plus ENGRAM_ENTITY_ALIASES (validated at start-up
 * by loadConfig).
 */
function configuredAliasTable(options?: EntityAliasOptions): EntityAliasTable {
  if (!options || options.aliases.trim() === '') return defaultAliasTable;
  const parsed = parseAliasEntries(entityAliasesSource(options.aliases));
  return 'entries' in parsed ? buildAliasTable(DEFAULT_ENTITY_ALIASES, parsed.entries) : defaultAliasTable;
}

/**
 * The alias tables of one engram process: the configured table (built once), and each user's
 * learned table, learned at recall from the memories of theirs that gloss a name.
 *
 * The fact store tells those memories apart when it writes them (`glossesAName`), so learning a
 * user's aliases reads a few memories (most users: none), not their whole history, and nothing is
 * kept between recalls: embedded and distributed alike, a recall sees the resolver's latest writes,
 * a forgotten user's aliases go with their memories, and a rebuilt projection version carries its own.
 */
@Injectable()
export class EntityAliases {
  /** The configured table: the indexer, the resolver and recall read the same one. */
  readonly configured: EntityAliasTable;
  private readonly minSeen: number;

  constructor(@Optional() @Inject(EntityAliasOptions) options?: EntityAliasOptions) {
    this.configured = configuredAliasTable(options);
    this.minSeen = options?.minSeen ?? DEFAULT_ALIAS_MIN_SEEN;
  }

  /** The configured table plus what these memories gloss often enough (any memories of one user: those that gloss nothing count for nothing). */
  forMemories(memories: readonly AliasSource[]): EntityAliasTable {
    return learnedAliasTable(this.configured, this.minSeen, memories);
  }

  /** The user's alias table (configured + learned): one read of the memories of theirs that gloss a name. */
  async ofUser(store: Pick<FactStore, 'glossing'>, tenantId: string, userId: string): Promise<EntityAliasTable> {
    if (this.minSeen === 0) return this.configured;
    return this.forMemories(await store.glossing(tenantId, userId));
  }
}
