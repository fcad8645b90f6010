import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityAliasOptions, entityAliasesSource } from '@engram/config';
import type { MemoryRecord } from '@engram/contracts';
import type { FactStore } from '@engram/ports';
import {
  buildAliasTable,
  DEFAULT_ALIAS_MIN_SEEN,
  DEFAULT_ENTITY_ALIASES,
  defaultAliasTable,
  EntityAliasTable,
  learnAliases,
  parseAliasEntries,
  SUMMARY_KIND,
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

/** The base table plus the aliases glossed in enough of a user's turns (as kept in their memories). */
function learnedTable(base: EntityAliasTable, minSeen: number, memories: readonly MemoryRecord[]): EntityAliasTable {
  if (minSeen === 0) return base;
  // One text per turn: a turn's fact and its episode say the same gloss once, not twice.
  const byTurn = new Map<string, string>();
  for (const memory of memories) {
    if (memory.kind === SUMMARY_KIND) continue; // it repeats many turns' words in one text
    const turn = memory.sourceTurnIds[0] ?? memory.memoryId;
    byTurn.set(turn, `${byTurn.get(turn) ?? ''}\n${memory.content}`);
  }
  return learnAliases([...byTurn.values()], base, minSeen);
}

/** A fact store's learned tables (see `EntityAliases`). */
interface UserTables {
  readonly tables: Map<string, { readonly table: EntityAliasTable; readonly at: number }>;
  /** Bumped by every change of a user: a table learned from a read that a write overtook is not kept. */
  readonly generations: Map<string, number>;
  epoch: number;
}

const LEARNED_TABLES_PER_STORE = 10_000;
/**
 * A safety net, not the mechanism: a change this process cannot see (a projection version activated
 * elsewhere, an offline rebuild) is picked up within this long. Re-learning once a minute per active
 * user costs nothing next to once per recall.
 */
const LEARNED_TABLE_MAX_AGE_MS = 60_000;
/** Only a read in flight needs a user's generation; the oldest are forgotten past this many users. */
const GENERATIONS_PER_STORE = 100_000;

const userKey = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

/**
 * The alias tables of one engram process: the configured table (built once), and each user's
 * learned table, kept between recalls.
 *
 * Learning a user's aliases reads every memory of the user (all statuses, with history) and runs the
 * gloss pattern over each: ~40 % of recall CPU when done per recall. The table only changes when the
 * user's memories do, so it is kept per user and dropped when the facts projection writes that user
 * (`changed`), forgets them, or is truncated (`allChanged`; whoever switches the store to another
 * projection version should call it too), and after a minute at most.
 *
 * Kept only in embedded mode, where every writer of the fact store is in this process (the facts
 * projection, the forget endpoint). In distributed mode the recall app does not see the resolver's
 * writes, so it learns per recall as before (a cache there needs a change feed: the facts topic).
 * Kept per FactStore instance: a projection over another store (a rebuild's version) never touches
 * the tables of the one recall reads. One provider per app (EngramCoreModule), so recall, the facts
 * projection and the forget endpoint share it; another app in the same process has its own.
 */
@Injectable()
export class EntityAliases {
  /** The configured table: the indexer, the resolver and recall read the same one. */
  readonly configured: EntityAliasTable;
  private readonly minSeen: number;
  private readonly keepsTables: boolean;
  private readonly learned = new WeakMap<FactStore, UserTables>();

  constructor(@Optional() @Inject(EntityAliasOptions) options?: EntityAliasOptions) {
    this.configured = configuredAliasTable(options);
    this.minSeen = options?.minSeen ?? DEFAULT_ALIAS_MIN_SEEN;
    this.keepsTables = (options?.mode ?? 'embedded') === 'embedded';
  }

  /** The configured table plus what these memories gloss often enough. */
  forMemories(memories: readonly MemoryRecord[]): EntityAliasTable {
    return learnedTable(this.configured, this.minSeen, memories);
  }

  /**
   * The user's alias table (configured + learned), learned again only after their memories changed.
   * Where it had to read every memory of the user (no kept table: distributed mode, or a miss), it
   * hands them back too, so the caller does not read them a second time.
   */
  async ofUser(
    store: FactStore,
    tenantId: string,
    userId: string,
  ): Promise<{ readonly table: EntityAliasTable; readonly memories: readonly MemoryRecord[] | null }> {
    if (this.minSeen === 0) return { table: this.configured, memories: null };
    if (!this.keepsTables) {
      const memories = await store.list({ tenantId, userId });
      return { table: this.forMemories(memories), memories };
    }
    const entry = this.tablesOf(store);
    const key = userKey(tenantId, userId);
    const cached = entry.tables.get(key);
    entry.tables.delete(key);
    if (cached && Date.now() - cached.at < LEARNED_TABLE_MAX_AGE_MS) {
      entry.tables.set(key, cached); // most recently used last, so the oldest is the one evicted
      return { table: cached.table, memories: null };
    }
    const generation = entry.generations.get(key) ?? 0;
    const epoch = entry.epoch;
    const memories = await store.list({ tenantId, userId });
    const table = this.forMemories(memories);
    if (entry.epoch === epoch && (entry.generations.get(key) ?? 0) === generation) {
      if (entry.tables.size >= LEARNED_TABLES_PER_STORE) entry.tables.delete(entry.tables.keys().next().value as string);
      entry.tables.set(key, { table, at: Date.now() });
    }
    return { table, memories };
  }

  /** The user's memories changed in this store: their learned aliases are learned again on next use. */
  changed(store: FactStore, tenantId: string, userId: string): void {
    const entry = this.learned.get(store);
    if (!entry) return;
    const key = userKey(tenantId, userId);
    entry.tables.delete(key);
    const generation = (entry.generations.get(key) ?? 0) + 1;
    entry.generations.delete(key);
    if (entry.generations.size >= GENERATIONS_PER_STORE) entry.generations.delete(entry.generations.keys().next().value as string);
    entry.generations.set(key, generation);
  }

  /** Every user's memories may have changed (truncate, a switch to another projection version). */
  allChanged(store: FactStore): void {
    const entry = this.learned.get(store);
    if (!entry) return;
    entry.tables.clear();
    entry.generations.clear();
    entry.epoch++;
  }

  private tablesOf(store: FactStore): UserTables {
    let entry = this.learned.get(store);
    if (!entry) {
      entry = { tables: new Map(), generations: new Map(), epoch: 0 };
      this.learned.set(store, entry);
    }
    return entry;
  }
}
