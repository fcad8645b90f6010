import type { MemoryRecord } from '@engram/contracts';
import { byValidFromThenId, isInsight } from './insight-memory';
import type { CompiledRule } from './insight-rules';
import { type CueMatcher, foldedForCues, mayMatch } from '../text/cue-matching';

export interface Support {
  /** Supporting memories, ordered by validFrom then id. */
  readonly memories: readonly MemoryRecord[];
  /** Statements: groups of supporting memories that share a source turn, oldest first. */
  readonly statements: readonly (readonly MemoryRecord[])[];
  readonly groups: ReadonlySet<string>;
}

/** Which groups of which rule a memory matches: records are immutable, so this is cached per object. */
const matchCache = new WeakMap<CompiledRule, WeakMap<MemoryRecord, readonly string[]>>();

export function groupsMatched(compiled: CompiledRule, memory: MemoryRecord): readonly string[] {
  let cache = matchCache.get(compiled);
  if (!cache) {
    cache = new WeakMap();
    matchCache.set(compiled, cache);
  }
  let groups = cache.get(memory);
  if (!groups) {
    const text = textOf(memory);
    const folded = foldedForCues(text);
    const holds = (cues: CueMatcher) => mayMatch(cues, folded) && cues.re.test(text);
    groups = compiled.exclude && holds(compiled.exclude) ? [] : compiled.groups.filter((g) => holds(g.cues)).map((g) => g.id);
    cache.set(memory, groups);
  }
  return groups;
}

/** What a memory is matched on: its sentence, its attribute in words, its entities. */
function textOf(memory: MemoryRecord): string {
  const about = memory.kind === 'episode' ? '' : memory.attribute.replace(/[:_/-]+/g, ' ');
  return [memory.content, about, ...memory.entities].join('\n');
}

export function supportOf(compiled: CompiledRule, memories: readonly MemoryRecord[], corrected: ReadonlySet<string>): Support {
  const supporting = memories
    .filter((m) => m.status === 'active' && !isInsight(m) && m.subject === 'user' && groupsMatched(compiled, m).length > 0)
    .filter((m) => m.kind !== 'episode' || !m.sourceTurnIds.some((turn) => corrected.has(turn)))
    .sort(byValidFromThenId);
  const groups = new Set(supporting.flatMap((m) => groupsMatched(compiled, m)));
  return { memories: supporting, statements: statementsOf(supporting), groups };
}

/**
 * Turns the user has since corrected: what was extracted from them was superseded (its old version's
 * turns) or retracted, expired, archived. Episodes are never superseded themselves (they are the turn
 * kept whole), so without this "我不想自己运维服务器" would keep supporting an insight as an episode
 * after "其实我现在挺喜欢自己运维服务器的" superseded it as a preference. The fact, if still active,
 * keeps supporting on its own.
 */
export function correctedTurns(memories: readonly MemoryRecord[]): Set<string> {
  const turns = new Set<string>();
  for (const memory of memories) {
    if (memory.kind === 'episode' || isInsight(memory)) continue;
    for (const version of memory.history) for (const turn of version.sourceTurnIds) turns.add(turn);
    if (memory.status !== 'active') for (const turn of memory.sourceTurnIds) turns.add(turn);
  }
  return turns;
}

/** Union-find over shared source turns: "I don't want to run servers" as a fact and as an episode is one statement. */
function statementsOf(memories: readonly MemoryRecord[]): MemoryRecord[][] {
  const parent = memories.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const byTurn = new Map<string, number>();
  memories.forEach((memory, i) => {
    for (const turn of memory.sourceTurnIds) {
      const other = byTurn.get(turn);
      if (other === undefined) byTurn.set(turn, i);
      else parent[find(i)] = find(other);
    }
  });
  const statements = new Map<number, MemoryRecord[]>();
  memories.forEach((memory, i) => {
    const root = find(i);
    statements.set(root, [...(statements.get(root) ?? []), memory]);
  });
  return [...statements.values()];
}

export function enough(compiled: CompiledRule, support: Support): boolean {
  return support.statements.length > 0 && support.statements.length >= compiled.minSupport && support.groups.size >= compiled.minGroups;
}

// ---- decisions -----------------------------------------------------------------------------
