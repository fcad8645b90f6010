// The resolution rules for one item: a keyed item reinforces, supersedes or retracts its memory (or
// adds one); a correction finds what it corrects, possibly on another key; "that's no longer true"
// applies to what was mentioned last.
import type { ExtractedItem, MemoriesExtracted, MemoryDecision, MemoryRecord } from '@engram/contracts';
import { LAST_MENTIONED, mergeKeyOf } from '../extraction/extraction.strategy';
import { CORRECTED_FAMILIES, findByMergeKey, lastMentioned, latestScoped, nearDuplicate } from './resolution.lookup';
import { normaliseValue, sameValue, sharedTerms, termsOf, valueShape } from './resolution.matching';
import { added, reinforce, supersede, union } from './resolution.records';
import { familyOf, PINNED_FAMILIES, type ResolutionOptions, type ResolverState } from './resolution.state';
import { factFrequency, sameFrameNow, subjectScore } from './subject';

export type Change = { type: MemoryDecision['type']; memory: MemoryRecord } | null;

export function resolveKeyed(command: MemoriesExtracted, item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
  const mergeKey = mergeKeyOf(item);
  const existing = findByMergeKey(state, mergeKey) ?? latestScoped(item, state);
  if (item.operation === 'retract') return existing ? retract(existing, item, options) : null;
  if (existing) return assertOn(existing, item, options);
  // The speaker's earlier memories, read once for the searches below that need them.
  let earlierOnes: MemoryRecord[] | undefined;
  const earlier = () => (earlierOnes ??= correctable(item, state));
  // "周报以后改成纯文字吧" names 周报, which no memory holds as its attribute: it changes the memory
  // about 周报 ("周报我习惯用表格的形式来写"), whatever attribute that one was filed under.
  const named = item.correction === 'named' ? namedIn(item, earlier()) : null;
  if (named) return landOn(named, item, options);
  // "我最近在学Rust语言" months after "我最近在学Go语言": what the speaker is doing now (subject.ts).
  const reframed = item.operation === 'assert' ? earlier().find((m) => m.kind === item.kind && sameFrameNow(item, m)) : undefined;
  if (reframed)
    return {
      type: 'MemorySuperseded',
      memory: supersede(reframed, { ...item, attribute: reframed.attribute, keys: correctedKeys(reframed, item) }, options),
    };
  const duplicate = nearDuplicate(item, state, options.similarityThreshold) ?? restatedIn(item, earlier);
  if (duplicate) return { type: 'MemoryReinforced', memory: reinforce(duplicate, item, options) };
  return { type: 'MemoryAdded', memory: added(command, item, mergeKey, options) };
}

/**
 * Whether an item may land on a memory of another merge key: a correction that names no attribute
 * ("不对，改成9点", "no, make it 10", "forget what I said about durian") or one whose attribute is
 * its own object (`preference:…`, `task:…`: "我改主意了，我要低卡方案"), or a family's unscoped name
 * ("the deadline moved to…", CORRECTED_FAMILIES). A correction of another plain attribute
 * (`database`, `收货地址`, `standup`) is its merge key: it supersedes that memory or is new.
 */
export function correctsOthers(item: ExtractedItem): boolean {
  if (!item.correction) return false;
  return (
    item.correction === 'open' ||
    item.attribute === LAST_MENTIONED ||
    item.attribute.includes(':') ||
    CORRECTED_FAMILIES.includes(item.attribute)
  );
}

/**
 * A correction supersedes (a forget request retracts) what it corrects, whether or not its attribute
 * is one the rules know: the memory with its merge key when the user has one; else the memory it
 * answers — the latest compatible memory stated earlier in the same session; else the most similar
 * current memory of the same subject. With none of these, an open correction falls back to the
 * value's shape (the latest amount, schedule, time: `resolveAnaphora`) and a named one is a new memory.
 */
export function resolveCorrection(
  command: MemoriesExtracted,
  item: ExtractedItem,
  state: ResolverState,
  options: ResolutionOptions,
): Change {
  if (item.attribute !== LAST_MENTIONED && (findByMergeKey(state, mergeKeyOf(item)) ?? latestScoped(item, state))) {
    return resolveKeyed(command, item, state, options);
  }
  // "the reconciliation deadline moved to November 13": a correction of "the deadline" names no task,
  // so it speaks of the scoped deadline mentioned last, as an unscoped budget does (SCOPED_FAMILIES).
  const scoped = item.correction === 'named' ? latestScoped(item, state, CORRECTED_FAMILIES) : undefined;
  if (scoped)
    return item.operation === 'retract'
      ? retract(scoped, item, options)
      : assertOn(scoped, { ...item, attribute: scoped.attribute, kind: scoped.kind }, options);
  if (item.correction === 'named' && item.attribute !== LAST_MENTIONED && !item.attribute.includes(':'))
    return resolveKeyed(command, item, state, options);
  const target = correctedBy(command, item, state);
  if (target) return landOn(target, item, options);
  if (item.attribute !== LAST_MENTIONED) return resolveKeyed(command, item, state, options);
  return item.operation === 'retract' ? null : resolveAnaphora(item, state, options);
}

/** A correction applied to the memory it corrects, on that memory's key. */
function landOn(target: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): Change {
  if (item.operation === 'retract') return retract(target, { ...item, value: '' }, options);
  // Landing on another key, it says something new even when the values agree ("like" → "like").
  const landed = { ...item, kind: target.kind, attribute: target.attribute, keys: correctedKeys(target, item) };
  const restated = normaliseValue(target.content) === normaliseValue(item.content);
  return restated || item.attribute === LAST_MENTIONED
    ? assertOn(target, landed, options)
    : { type: 'MemorySuperseded', memory: supersede(target, landed, options) };
}

/**
 * The speaker's earlier memories a correction may land on: active, theirs (one speaker corrects what
 * they said, not what another participant said), not from the correcting turn, neither an episode
 * nor an insight.
 */
function correctable(item: ExtractedItem, state: ResolverState): MemoryRecord[] {
  const own = new Set(item.sourceTurnIds);
  const at = Date.parse(item.validFrom);
  return [...state.values()].filter(
    (memory) =>
      memory.status === 'active' &&
      memory.subject === item.subject &&
      memory.kind !== 'episode' &&
      memory.kind !== 'insight' &&
      Date.parse(memory.lastSeenAt) <= at &&
      !memory.sourceTurnIds.some((turn) => own.has(turn)) &&
      (memory.speaker ?? null) === (item.speaker ?? null),
  );
}

/** The latest memory whose words hold the subject a named correction names (its attribute), distinctively. */
function namedIn(item: ExtractedItem, candidates: readonly MemoryRecord[]): MemoryRecord | null {
  const frequency = factFrequency(candidates);
  const about = termsOf(item.attribute.replace(/[_-]+/g, ' '));
  let best: { memory: MemoryRecord; score: number } | null = null;
  for (const memory of candidates) {
    const score = subjectScore(about, termsOf(memory.content), frequency);
    if (score > 0 && (!best || score > best.score || (score === best.score && memory.lastSeenAt > best.memory.lastSeenAt)))
      best = { memory, score };
  }
  return best?.memory ?? null;
}

/**
 * A liking said again in other words is the same memory, reinforced: "I really love Radiohead" after
 * "My favourite band is Radiohead", "早上跑步是我多年的习惯" after "我每天早上都去跑步". The thing liked
 * (a preference's object, a favourite's value) must be named by an earlier memory of the speaker's
 * that likes or does it: its attribute and value hold at least RESTATED_SHARE of its terms (the
 * tokenizer's bigrams across two words, 上跑 in 早上跑步, are seldom in another wording).
 */
const RESTATED_SHARE = 2 / 3;

function restatedIn(item: ExtractedItem, earlier: () => readonly MemoryRecord[]): MemoryRecord | null {
  const thing = likedThing(item.kind, item.attribute, item.value);
  if (item.operation !== 'assert' || thing === null) return null;
  const wanted = termsOf(thing);
  if (wanted.length < 2) return null;
  let best: MemoryRecord | null = null;
  for (const memory of earlier()) {
    const said =
      likedThing(memory.kind, memory.attribute, memory.value) ?? (memory.attribute.startsWith('schedule:') ? memory.attribute : null);
    if (said === null) continue;
    const held = termsOf(`${said.replace(/[_:-]+/g, ' ')} ${memory.value}`);
    if (sharedTerms(wanted, held) >= RESTATED_SHARE * (wanted.length - 1) && (!best || memory.lastSeenAt > best.lastSeenAt)) best = memory;
  }
  return best;
}

/** What a preference says is liked or done: its object (`preference:hiking` = like/habit), or a favourite's value. */
function likedThing(kind: string, attribute: string, value: string): string | null {
  if (kind !== 'preference') return null;
  if (attribute.startsWith('preference:')) return TAKES_TO.has(value) ? attribute.slice('preference:'.length).replace(/-/g, ' ') : null;
  return value;
}

/**
 * Overlap (shared terms over the smaller set) from which a memory of another session counts as the
 * one a correction speaks of: half of the shorter text's terms.
 */
const CORRECTION_OVERLAP = 0.5;

/**
 * The memory a correction answers (see resolveCorrection); ties go to the later memory, then the
 * higher id. A value of a shape ("9点", "10", "五万") answers the latest memory of that shape said
 * earlier in the session; words ("我要低卡方案") answer only what the speaker said last in it.
 * Across sessions, the memory it mostly restates (CORRECTION_OVERLAP), else the one whose subject
 * it names ("afternoons work much better for meetings now" after "I prefer to have my meetings in
 * the morning": subject.ts).
 */
function correctedBy(command: MemoriesExtracted, item: ExtractedItem, state: ResolverState): MemoryRecord | null {
  const session = turnsOfSession(state, command.payload.sessionId);
  const words = item.operation === 'assert' && valueShape(item.value) === 'text';
  const lastTurn = words ? lastTurnOf(item, state, session) : null;
  const itemTerms = termsOf(item.content);
  let answered: MemoryRecord | null = null;
  let similar: { memory: MemoryRecord; overlap: number } | null = null;
  let named: { memory: MemoryRecord; score: number } | null = null;
  const later = (a: MemoryRecord, b: MemoryRecord) =>
    a.lastSeenAt > b.lastSeenAt || (a.lastSeenAt === b.lastSeenAt && a.memoryId > b.memoryId);
  // A standing constraint changes only by what says it no longer holds (resolution.conflicts.ts):
  // "since I'm lactose intolerant I'm trying almond milk instead" corrects no allergy or diet.
  const candidates = correctable(item, state).filter(
    (memory) => !PINNED_FAMILIES.includes(familyOf(memory.attribute)) || familyOf(memory.attribute) === familyOf(item.attribute),
  );
  const frequency = factFrequency(candidates);
  for (const memory of candidates) {
    const memoryTerms = termsOf(memory.content);
    const shared = sharedTerms(itemTerms, memoryTerms);
    const inSession = words
      ? lastTurn !== null && memory.sourceTurnIds.includes(lastTurn)
      : memory.sourceTurnIds.some((turn) => session.has(turn));
    if (inSession && compatible(item, memory, shared) && (!answered || later(memory, answered))) {
      answered = memory;
    }
    const overlap = shared / Math.max(1, Math.min(itemTerms.length, memoryTerms.length) - 1);
    if (
      overlap >= CORRECTION_OVERLAP &&
      (!similar || overlap > similar.overlap || (overlap === similar.overlap && later(memory, similar.memory)))
    ) {
      similar = { memory, overlap };
    }
    const score = subjectScore(itemTerms, memoryTerms, frequency);
    if (score > 0 && (!named || score > named.score || (score === named.score && later(memory, named.memory)))) {
      named = { memory, score };
    }
  }
  return answered ?? similar?.memory ?? named?.memory ?? null;
}

/**
 * Whether a correction can be about a memory said earlier in its session: a value of the same shape
 * ("9点" for "8点"; a bare "10" for "9am" or an amount), or, for words, at least one term in common
 * ("我要低卡方案" and "我喜欢高热量的饮食方案" share 方案). "其实我穿 43.5 更合适" is not about "我对芒果过敏".
 */
function compatible(item: ExtractedItem, memory: MemoryRecord, shared: number): boolean {
  if (item.operation === 'retract') return shared > 0;
  const shape = valueShape(item.value);
  if (shape === 'text') return shared > 0;
  const other = valueShape(memory.value);
  return shape === other || (/^\d+(?:\.\d+)?$/u.test(item.value.trim()) && other !== 'text' && other !== 'schedule');
}

/** The speaker's latest turn in the session before the item's (from its episodes), or null. */
function lastTurnOf(item: ExtractedItem, state: ResolverState, session: ReadonlySet<string>): string | null {
  const own = new Set(item.sourceTurnIds);
  let last: MemoryRecord | null = null;
  for (const memory of state.values()) {
    if (memory.kind !== 'episode' || memory.subject !== item.subject || (memory.speaker ?? null) !== (item.speaker ?? null)) continue;
    if (!memory.sourceTurnIds.some((turn) => session.has(turn)) || memory.sourceTurnIds.some((turn) => own.has(turn))) continue;
    if (memory.validFrom > item.validFrom) continue;
    if (!last || memory.validFrom > last.validFrom || (memory.validFrom === last.validFrom && memory.memoryId > last.memoryId))
      last = memory;
  }
  return last?.sourceTurnIds[last.sourceTurnIds.length - 1] ?? null;
}

/** The turns of a session, from its episodes (`episode:<session>:<turn>`): memories store no session. */
function turnsOfSession(state: ResolverState, sessionId: string): Set<string> {
  const prefix = `episode:${sessionId}:`;
  const turns = new Set<string>();
  for (const memory of state.values()) {
    if (memory.kind === 'episode' && memory.attribute.startsWith(prefix)) for (const turn of memory.sourceTurnIds) turns.add(turn);
  }
  return turns;
}

/**
 * A correction landing on another memory keeps what that memory is found by: its keys, its
 * attribute in words — a plain one ("no, make it 10" is found by "standup") or what a family's
 * attribute is about ("I've switched to almond milk now" on `preference:my-latte` is still found by
 * "latte") — and the words it replaces: "以后给我订靠过道的座位吧" is still the answer to a question
 * about booking train tickets, which "订火车票的话我比较喜欢靠窗的座位" was found by.
 */
function correctedKeys(target: MemoryRecord, item: ExtractedItem): string[] {
  const colon = target.attribute.indexOf(':');
  const about = target.attribute.slice(colon + 1).replace(/[_-]+/g, ' ');
  const replaced = target.content === item.content ? [] : [target.content];
  return union(union(target.keys ?? [], item.keys ?? []), [...(about.trim() === '' ? [] : [about]), ...replaced]);
}

/** "that's no longer true", "不是三万，是五万": applies to what the subject mentioned last. */
export function resolveAnaphora(item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
  // A new value corrects the latest memory holding a value of the same shape ("不是三万，是五万" → the
  // latest amount, "改成周一三五" → the latest schedule); a free-text value names nothing we can
  // check, so it corrects nothing ("其实我穿 43.5 更合适" must not overwrite an allergy).
  const shape = item.operation === 'assert' ? valueShape(item.value) : null;
  if (shape === 'text') return null;
  const target = lastMentioned(item, state, shape);
  if (!target) return null;
  if (item.operation === 'retract') return retract(target, item, options);
  return assertOn(target, { ...item, kind: target.kind, attribute: target.attribute }, options);
}

/** Values of a preference that say the person likes or does the thing: "I love hiking", "I go hiking most weekends". */
const TAKES_TO: ReadonlySet<string> = new Set(['like', 'habit']);

function assertOn(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): Change {
  const agrees =
    sameValue(existing.value, item.value) || (existing.kind === 'preference' && TAKES_TO.has(existing.value) && TAKES_TO.has(item.value));
  if (existing.status === 'active' && agrees) {
    return { type: 'MemoryReinforced', memory: reinforce(existing, item, options) };
  }
  return { type: 'MemorySuperseded', memory: supersede(existing, item, options) };
}

function retract(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): Change {
  if (existing.status !== 'active') return null;
  // "I no longer use Vim" must not retract an editor memory that already says VS Code.
  if (item.value !== '' && !sameValue(existing.value, item.value)) return null;
  return {
    type: 'MemoryRetracted',
    memory: {
      ...existing,
      status: 'retracted',
      validTo: item.validFrom,
      revision: existing.revision + 1,
      updatedAt: options.recordedAt,
      sourceTurnIds: union(existing.sourceTurnIds, item.sourceTurnIds),
      appliedItemIds: [...existing.appliedItemIds, item.itemId],
    },
  };
}
