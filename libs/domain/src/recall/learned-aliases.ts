import type { MemoryRecord } from '@engram/contracts';
import { EntityAliasTable, glossedPairs, learnAliasesFromTurns } from '../text/entity-aliases';
import { SUMMARY_KIND } from '../summaries/session-summary';

/** What a memory lends its user's learned aliases: its kind, its text, and the turn it was said in. */
export type AliasSource = Pick<MemoryRecord, 'memoryId' | 'kind' | 'content' | 'sourceTurnIds'>;

/**
 * True when the memory glosses a name ("白鲸（Blackwhale）"): only such memories count towards the
 * user's learned aliases (`learnedAliasTable`), so a fact store keeps this beside each memory and
 * recall reads those alone, not the user's whole history. A summary repeats many turns' words in
 * one text: never. Cheap when there is no parenthesis, as in most memories.
 */
export function glossesAName(memory: Pick<AliasSource, 'kind' | 'content'>): boolean {
  if (memory.kind === SUMMARY_KIND) return false;
  // NFKC makes "（" and every other parenthesis form "(": without one there is no gloss.
  const text = memory.content.normalize('NFKC');
  return text.includes('(') && glossedPairs(text).length > 0;
}

/**
 * The base table plus the aliases glossed in at least `minSeen` turns of the user, read from their
 * memories (any status). A turn counts a gloss once, however many of its memories repeat it (a
 * fact and its episode). Each memory's text is read on its own, so only the memories that gloss a
 * name matter: the answer for those alone is the answer for all of them.
 */
export function learnedAliasTable(base: EntityAliasTable, minSeen: number, memories: readonly AliasSource[]): EntityAliasTable {
  if (minSeen <= 0) return base;
  const byTurn = new Map<string, string[]>();
  for (const memory of memories) {
    if (!glossesAName(memory)) continue;
    const turn = memory.sourceTurnIds[0] ?? memory.memoryId;
    const texts = byTurn.get(turn);
    if (texts) texts.push(memory.content);
    else byTurn.set(turn, [memory.content]);
  }
  return byTurn.size === 0 ? base : learnAliasesFromTurns([...byTurn.values()], base, minSeen);
}
