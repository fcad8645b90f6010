import { EngramConfig, entityAliasesSource } from '@engram/config';
import type { MemoriesExtracted, MemoryRecord } from '@engram/contracts';
import { buildAliasTable, DEFAULT_ENTITY_ALIASES, defaultAliasTable, EntityAliasTable, findEntities, learnAliases, parseAliasEntries } from '@engram/domain';

const tables = new WeakMap<EngramConfig, EntityAliasTable>();

/**
 * The configured alias table: built-in defaults plus ENGRAM_ENTITY_ALIASES (validated at start-up
 * by loadConfig). One per configuration object, so the indexer and recall share it.
 */
export function configuredAliasTable(config?: EngramConfig): EntityAliasTable {
  if (!config || config.ENGRAM_ENTITY_ALIASES.trim() === '') return defaultAliasTable;
  let table = tables.get(config);
  if (!table) {
    const parsed = parseAliasEntries(entityAliasesSource(config.ENGRAM_ENTITY_ALIASES));
    table = 'entries' in parsed ? buildAliasTable(DEFAULT_ENTITY_ALIASES, parsed.entries) : defaultAliasTable;
    tables.set(config, table);
  }
  return table;
}

/** The configured table plus the aliases glossed in enough of this user's turns (as kept in their memories). */
export function userAliasTable(config: EngramConfig | undefined, memories: readonly MemoryRecord[]): EntityAliasTable {
  const base = configuredAliasTable(config);
  const minSeen = config?.ENGRAM_ALIAS_MIN_SEEN ?? 2;
  if (minSeen === 0) return base;
  // One text per turn: a turn's fact and its episode say the same gloss once, not twice.
  const byTurn = new Map<string, string>();
  for (const memory of memories) {
    const turn = memory.sourceTurnIds[0] ?? memory.memoryId;
    byTurn.set(turn, `${byTurn.get(turn) ?? ''}\n${memory.content}`);
  }
  return learnAliases([...byTurn.values()], base, minSeen);
}

/** Canonical names of the entities a memory names (its extracted entities and its text). */
export function canonicalEntitiesOf(memory: MemoryRecord, table: EntityAliasTable): string[] {
  return findEntities([memory.content, memory.value, ...memory.entities].join(' \u0000 '), table);
}

/**
 * Normalised entities are part of the memory: before the resolver decides, each extracted item's
 * entities gain the canonical names of what it mentions, so the fact store, the index, ranking's
 * term coverage and exports all carry "Oracle" for "甲骨文数据库". Configured aliases only, so the
 * decision is a function of the event and the configuration.
 */
export function withCanonicalEntities(event: MemoriesExtracted, table: EntityAliasTable): MemoriesExtracted {
  let changed = false;
  const items = event.payload.items.map((item) => {
    const canonical = findEntities([item.content, item.value, ...item.entities].join(' \u0000 '), table);
    const missing = canonical.filter((name) => !item.entities.some((e) => e.toLowerCase() === name.toLowerCase()));
    if (missing.length === 0) return item;
    changed = true;
    return { ...item, entities: [...item.entities, ...missing] };
  });
  return changed ? { ...event, payload: { ...event.payload, items } } : event;
}
