// Contradictions (docs/memory-model.md §3): a statement that a standing constraint does not hold
// lands on the constraint it denies, and a new value that cannot hold beside the one it replaces
// carries a conflict note until the user confirms it.
import type { ExtractedItem, MemoryDecision, MemoryRecord } from '@engram/contracts';
import { AVOIDED, NOT_HELD } from '../extraction/constraint-values';
import { mergeKeyOf } from '../extraction/extraction.strategy';
import { findByMergeKey } from './resolution.lookup';
import { reinforce, supersede } from './resolution.records';
import type { Change } from './resolution.rules';
import { familyOf, PINNED_FAMILIES, type ResolutionOptions, type ResolverState } from './resolution.state';

/** The families a constraint on a thing is kept in: the pinned ones, and a food avoided (`preference:<food>` = avoid). */
const CONSTRAINT_FAMILIES: readonly string[] = [...PINNED_FAMILIES, 'preference'];

/** Preference values that say a person does take the thing: they lift an `avoid`. */
const TAKEN: readonly string[] = ['like', 'habit'];

/** Whether a memory (or item) of this key and value says a standing constraint holds: "对青霉素过敏", "不吃香菜". */
function holds(attribute: string, value: string): boolean {
  const family = familyOf(attribute);
  if (family === 'preference') return value === AVOIDED;
  return PINNED_FAMILIES.includes(family) && attribute.includes(':') && value !== NOT_HELD;
}

/** Whether it says the constraint on its thing does not hold: "我可以用青霉素", "我现在吃香菜了", "我喜欢吃香菜". */
function lifts(attribute: string, value: string): boolean {
  if (value === NOT_HELD) return CONSTRAINT_FAMILIES.includes(familyOf(attribute));
  return familyOf(attribute) === 'preference' && TAKEN.includes(value);
}

/** An item that denies a constraint on its thing: "我可以用青霉素" → `preference:青霉素` = none. */
export function deniesConstraint(item: ExtractedItem): boolean {
  return item.operation === 'assert' && item.value === NOT_HELD && CONSTRAINT_FAMILIES.includes(familyOf(item.attribute));
}

/**
 * A denial speaks of the constraint on its thing, whichever family holds it: "我可以吃花生了" (read as
 * `preference:花生`) denies "我对花生过敏" (`allergy:花生`). It supersedes that constraint (the old value
 * to history, the contradiction noted by `withConflict`); said again, it reinforces the denial it made
 * before (the user confirms). With no current constraint of the same subject and speaker on the thing it
 * decides nothing: "I can eat peanuts" says nothing worth a memory of its own, and its turn's episode
 * keeps the words.
 */
export function resolveDenial(item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
  const thing = item.attribute.slice(item.attribute.indexOf(':') + 1);
  const own = familyOf(item.attribute);
  const onThing = [own, ...CONSTRAINT_FAMILIES.filter((f) => f !== own)]
    .map((family) => findByMergeKey(state, mergeKeyOf({ subject: item.subject, attribute: `${family}:${thing}` })))
    .filter(
      (memory): memory is MemoryRecord =>
        memory !== undefined && memory.status === 'active' && (memory.speaker ?? null) === (item.speaker ?? null),
    );
  const constraint = onThing.find((memory) => holds(memory.attribute, memory.value));
  if (constraint) {
    const landed = { ...item, kind: constraint.kind, attribute: constraint.attribute };
    return { type: 'MemorySuperseded', memory: supersede(constraint, landed, options) };
  }
  const denied = onThing.find((memory) => memory.value === NOT_HELD);
  if (denied) return { type: 'MemoryReinforced', memory: reinforce(denied, { ...item, attribute: denied.attribute }, options) };
  return null;
}

/**
 * The memory a decision leaves, with its conflict note when the new value cannot hold beside the one
 * it replaces: a constraint lifted ("我对青霉素过敏" → "我可以用青霉素", "我不吃香菜" → "我现在吃香菜了")
 * or one said again after it was lifted. The newer is current (the ordinary supersession); the note
 * names the value it contradicts until the user confirms the newer one (a reinforcement drops it,
 * resolution.records.ts). While the note is open the memory stays pinned if the constraint was, so
 * every prompt the constraint reached still sees the contradiction. A change of mind that lifts
 * nothing ("我喜欢吃辣" → "我不吃辣", "高热量" → "低卡") is no conflict.
 */
export function withConflict(type: MemoryDecision['type'], before: MemoryRecord | undefined, memory: MemoryRecord): MemoryRecord {
  if (type !== 'MemorySuperseded' || !before || before.status !== 'active') return memory;
  const lifted = holds(before.attribute, before.value) && lifts(memory.attribute, memory.value);
  const restored = before.value === NOT_HELD && holds(memory.attribute, memory.value);
  if (!lifted && !restored) return memory;
  return {
    ...memory,
    pinned: memory.pinned || before.pinned,
    conflict: {
      previousVersion: before.version,
      previousValue: before.value,
      previousContent: before.content,
      previousFrom: before.validFrom,
      since: memory.validFrom,
    },
  };
}
