import {
  causedBy,
  deterministicId,
  type ExtractedItem,
  type MemoriesExtracted,
  type MemoryDecision,
  type MemoryRecord,
  type MemoryVersion,
  newEvent,
} from '@engram/contracts';
import { LAST_MENTIONED, mergeKeyOf } from './extraction.strategy';
import { amountToNumber, extractDate, extractRecurrence, isTimeOfDay } from './text-values';
import { tokenize } from './tokenizer';

/**
 * The resolver: folds extracted items into the user's memories. Emmett-style decider — pure
 * `decide(command, state) → events` and `evolve(state, event) → state`; the adapter loads the
 * state, persists the events, and projections replay them without deciding again.
 *
 * State should hold the user's active memories plus any memory whose merge key the command
 * touches: near-duplicate detection and "that's no longer true" look beyond the merge key.
 */
export type ResolverState = ReadonlyMap<string /* memoryId */, MemoryRecord>;

export interface ResolutionOptions {
  /** Content similarity (0..1) at which an item without a merge-key match reinforces an existing memory. */
  readonly similarityThreshold: number;
  readonly recordedAt: string;
  /** Attributes of the user pinned (always injected first); DEFAULT_PINNED_ATTRIBUTES when absent. */
  readonly pinnedAttributes?: readonly string[];
}

/**
 * The facts layer (always injected first, before anything ranked) holds the user's name by default:
 * the one fact every prompt needs, whatever it is about.
 *
 * The design brief lists budgets, deadlines and meetings there too, and profile facts used to be
 * pinned wholesale. Measured on the bilingual eval, that cost 1–4 of the 5 slots of every answer:
 * a purchase's budget or a project's deadline is noise in a prompt about something else, and it
 * stays pinned long after the purchase or the project is over. Pinning role, employer and city as
 * well still cost one slot per answer (MRR 0.50 against 0.57 with the name alone) for no gain when
 * the question is about them. So everything else is ranked: profile facts never decay and carry
 * importance 0.9+, budgets and deadlines 0.8, which puts them first whenever the query is about them.
 * Deployments that want more pinned (say role and employer for a work assistant) pass
 * `pinnedAttributes`.
 */
export const DEFAULT_PINNED_ATTRIBUTES: readonly string[] = ['name'];

export function initialState(): ResolverState {
  return new Map();
}

export function decide(command: MemoriesExtracted, state: ResolverState, options: ResolutionOptions): MemoryDecision[] {
  const decisions: MemoryDecision[] = [];
  let current = state;
  for (const item of command.payload.items) {
    const decision = decideItem(command, item, current, options);
    if (!decision) continue;
    const before = current.get(decision.payload.memory.memoryId);
    for (const next of [decision, ...retireEpisodes(command, item, before, decision, current, options)]) {
      decisions.push(next);
      current = evolve(current, next);
    }
  }
  return decisions;
}

/** Applies a decision if it is newer than what the state holds: replays and reorderings are no-ops. */
export function evolve(state: ResolverState, event: MemoryDecision): ResolverState {
  const { memory } = event.payload;
  const existing = state.get(memory.memoryId);
  if (existing && existing.revision >= memory.revision) return state;
  const next = new Map(state);
  next.set(memory.memoryId, memory);
  return next;
}

export const ResolutionDecider = { initialState, decide, evolve } as const;

// ---- one item ------------------------------------------------------------------------------

type Change = { type: MemoryDecision['type']; memory: MemoryRecord } | null;

function decideItem(
  command: MemoriesExtracted,
  item: ExtractedItem,
  state: ResolverState,
  options: ResolutionOptions,
): MemoryDecision | null {
  // Checked across all memories: a near-duplicate or anaphoric item lands away from its own key.
  if ([...state.values()].some((m) => m.appliedItemIds.includes(item.itemId))) return null;
  const change = correctsOthers(item)
    ? resolveCorrection(command, item, state, options)
    : item.attribute === LAST_MENTIONED
      ? resolveAnaphora(item, state, options)
      : resolveKeyed(command, item, state, options);
  if (!change) return null;
  return decisionOn(command, item, change.type, change.memory, options);
}

/** The decision event an item causes; `idParts` tell apart several decisions caused by one item. */
function decisionOn(
  command: MemoriesExtracted,
  item: ExtractedItem,
  type: MemoryDecision['type'],
  memory: MemoryRecord,
  options: ResolutionOptions,
  ...idParts: string[]
): MemoryDecision {
  return newEvent<MemoryDecision>({
    ...causedBy(command),
    eventId: deterministicId('decision', command.eventId, item.itemId, ...idParts),
    type,
    occurredAt: item.validFrom,
    recordedAt: options.recordedAt,
    payload: { memory, itemId: item.itemId },
  });
}

function resolveKeyed(command: MemoriesExtracted, item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
  const mergeKey = mergeKeyOf(item);
  const existing = findByMergeKey(state, mergeKey) ?? latestScoped(item, state);
  if (item.operation === 'retract') return existing ? retract(existing, item, options) : null;
  if (existing) return assertOn(existing, item, options);
  const duplicate = nearDuplicate(item, state, options.similarityThreshold);
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
function correctsOthers(item: ExtractedItem): boolean {
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
function resolveCorrection(command: MemoriesExtracted, item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
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
  if (target && item.operation === 'retract') return retract(target, { ...item, value: '' }, options);
  if (target) {
    // Landing on another key, it says something new even when the values agree ("like" → "like").
    const landed = { ...item, kind: target.kind, attribute: target.attribute, keys: correctedKeys(target, item) };
    const restated = normaliseValue(target.content) === normaliseValue(item.content);
    return restated || item.attribute === LAST_MENTIONED
      ? assertOn(target, landed, options)
      : { type: 'MemorySuperseded', memory: supersede(target, landed, options) };
  }
  if (item.attribute !== LAST_MENTIONED) return resolveKeyed(command, item, state, options);
  return item.operation === 'retract' ? null : resolveAnaphora(item, state, options);
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
 */
function correctedBy(command: MemoriesExtracted, item: ExtractedItem, state: ResolverState): MemoryRecord | null {
  const session = turnsOfSession(state, command.payload.sessionId);
  const words = item.operation === 'assert' && valueShape(item.value) === 'text';
  const lastTurn = words ? lastTurnOf(item, state, session) : null;
  const own = new Set(item.sourceTurnIds);
  const at = Date.parse(item.validFrom);
  const itemTerms = termsOf(item.content);
  let answered: MemoryRecord | null = null;
  let similar: { memory: MemoryRecord; overlap: number } | null = null;
  const later = (a: MemoryRecord, b: MemoryRecord) =>
    a.lastSeenAt > b.lastSeenAt || (a.lastSeenAt === b.lastSeenAt && a.memoryId > b.memoryId);
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.subject !== item.subject || memory.kind === 'episode' || memory.kind === 'insight') continue;
    if (Date.parse(memory.lastSeenAt) > at || memory.sourceTurnIds.some((turn) => own.has(turn))) continue;
    // One speaker corrects what they said, not what another participant said.
    if ((memory.speaker ?? null) !== (item.speaker ?? null)) continue;
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
  }
  return answered ?? similar?.memory ?? null;
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
 * A correction landing on another memory keeps what that memory is found by: its keys (for a fact,
 * its attribute in words) and a plain attribute in words ("no, make it 10" is found by "standup").
 */
function correctedKeys(target: MemoryRecord, item: ExtractedItem): string[] {
  const about = target.attribute.includes(':') ? [] : [target.attribute.replace(/[_-]+/g, ' ')];
  return union(union(target.keys ?? [], item.keys ?? []), about);
}

/** "that's no longer true", "不是三万，是五万": applies to what the subject mentioned last. */
function resolveAnaphora(item: ExtractedItem, state: ResolverState, options: ResolutionOptions): Change {
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

function assertOn(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): Change {
  if (existing.status === 'active' && sameValue(existing.value, item.value)) {
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

/**
 * A corrected value must not come back through the turn that said it: once "预算控制在三万以内" is
 * superseded by "预算提到五万了" (or retracted), the episode of the turn that stated 三万 stops
 * being recalled too — otherwise it would answer "what is my budget" beside the new value. The
 * episode is retracted in the same decision batch, ending when the correction begins, so `asOf`
 * before the correction still sees it. Only episodes all of whose turns stated the old value are
 * retired, never the correcting turn's own. A turn that also said something still true ("她 10 月
 * 18 号生日，预算两千左右": the birthday stands) keeps its episode: it is the only place the rules'
 * misses of that turn can be found, and losing it cost two of the eval's temporal questions; the
 * old value then still shows in those words, next to the ranked, corrected fact.
 */
function retireEpisodes(
  command: MemoriesExtracted,
  item: ExtractedItem,
  before: MemoryRecord | undefined,
  decision: MemoryDecision,
  state: ResolverState,
  options: ResolutionOptions,
): MemoryDecision[] {
  if (decision.type !== 'MemorySuperseded' && decision.type !== 'MemoryRetracted') return [];
  if (!before || before.status !== 'active') return [];
  // One speaker corrects what they said: another participant's value on the same key (John's budget
  // after Maria's, in a conversation of two named people) leaves the first speaker's words searchable.
  const ownWords = (episode: MemoryRecord) => (episode.speaker ?? null) === (item.speaker ?? null);
  return episodesOnlyStating(before, state, new Set(item.sourceTurnIds))
    .filter(ownWords)
    .map((episode) =>
      decisionOn(
        command,
        item,
        'MemoryRetracted',
        {
          ...episode,
          status: 'retracted',
          validTo: item.validFrom,
          revision: episode.revision + 1,
          updatedAt: options.recordedAt,
          appliedItemIds: [...episode.appliedItemIds, item.itemId],
        },
        options,
        episode.memoryId,
      ),
    );
}

/**
 * The active episodes whose turns all stated `before` and nothing still true: no other current
 * memory rests on them (insights only quote their sources, they don't count) and none is in `keep`
 * (the correcting turns, or the turns of a value restored). Shared by corrections and by the
 * application's retract and revert (memory-control.decider.ts).
 */
export function episodesOnlyStating(before: MemoryRecord, state: ResolverState, keep: ReadonlySet<string> = new Set()): MemoryRecord[] {
  if (before.kind === 'episode') return [];
  const stated = new Set(before.sourceTurnIds);
  const stillTrue = new Set<string>(keep);
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.memoryId === before.memoryId || memory.kind === 'episode' || memory.kind === 'insight')
      continue;
    for (const turn of memory.sourceTurnIds) if (stated.has(turn)) stillTrue.add(turn);
  }
  return [...state.values()].filter(
    (episode) =>
      episode.kind === 'episode' &&
      episode.status === 'active' &&
      episode.sourceTurnIds.length > 0 &&
      episode.sourceTurnIds.every((turn) => stated.has(turn) && !stillTrue.has(turn)),
  );
}

// ---- the records ---------------------------------------------------------------------------

/**
 * A memory's id is derived from its merge key and the item that created it:
 * deterministic on replay, yet new when a forgotten user comes back, so no
 * external version (Elasticsearch tombstones) of the forgotten memory can
 * shadow the new one.
 */
export function memoryIdOf(tenantId: string, userId: string, mergeKey: string, createdByItemId: string): string {
  return deterministicId('memory', tenantId, userId, mergeKey, createdByItemId);
}

function findByMergeKey(state: ResolverState, mergeKey: string): MemoryRecord | undefined {
  for (const memory of state.values()) if (memory.mergeKey === mergeKey) return memory;
  return undefined;
}

function added(command: MemoriesExtracted, item: ExtractedItem, mergeKey: string, options: ResolutionOptions): MemoryRecord {
  return {
    tenantId: command.tenantId,
    userId: command.userId,
    memoryId: memoryIdOf(command.tenantId, command.userId, mergeKey, item.itemId),
    mergeKey,
    kind: item.kind,
    subject: item.subject,
    attribute: item.attribute,
    value: item.value,
    content: item.content,
    entities: [...item.entities],
    confidence: item.confidence,
    importance: item.importance,
    ephemeral: item.ephemeral,
    pinned: isPinned(item, options),
    status: 'active',
    version: 1,
    revision: 1,
    mentionCount: 1,
    sourceTurnIds: [...item.sourceTurnIds],
    ...speakerAndKeys(item),
    appliedItemIds: [item.itemId],
    validFrom: item.validFrom,
    validTo: null,
    createdAt: options.recordedAt,
    updatedAt: options.recordedAt,
    lastSeenAt: item.validFrom,
    history: [],
  };
}

/** Who said it and what else it is found by, only when the item has them (older records have neither). */
function speakerAndKeys(item: ExtractedItem): Pick<MemoryRecord, 'speaker' | 'keys'> {
  return { ...(item.speaker ? { speaker: item.speaker } : {}), ...(item.keys?.length ? { keys: [...item.keys] } : {}) };
}

/** Said again: more certain, seen more recently; the value and its version stay. */
function reinforce(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): MemoryRecord {
  return {
    ...existing,
    confidence: round(1 - (1 - existing.confidence) * 0.8),
    importance: Math.max(existing.importance, item.importance),
    entities: union(existing.entities, item.entities),
    ...(item.keys?.length ? { keys: union(existing.keys ?? [], item.keys) } : {}),
    mentionCount: existing.mentionCount + 1,
    sourceTurnIds: union(existing.sourceTurnIds, item.sourceTurnIds),
    appliedItemIds: [...existing.appliedItemIds, item.itemId],
    revision: existing.revision + 1,
    updatedAt: options.recordedAt,
    lastSeenAt: later(existing.lastSeenAt, item.validFrom),
  };
}

/**
 * A new value: the old one moves to history, closed at the new value's validFrom (world time)
 * and stamped with when engram learned it was no longer current (supersededAt). A retracted
 * memory asserted again comes back active this way. Mentions and confidence restart: they
 * measure the current value, not the attribute.
 */
function supersede(existing: MemoryRecord, item: ExtractedItem, options: ResolutionOptions): MemoryRecord {
  const previous: MemoryVersion = {
    version: existing.version,
    value: existing.value,
    content: existing.content,
    validFrom: existing.validFrom,
    validTo: existing.validTo ?? item.validFrom,
    recordedAt: existing.history[existing.history.length - 1]?.supersededAt ?? existing.createdAt,
    supersededAt: existing.status === 'active' ? options.recordedAt : existing.updatedAt,
    sourceTurnIds: existing.sourceTurnIds,
  };
  // The new value's speaker and keys replace the old one's (it may have had some the new lacks).
  // ...and a reason it was retracted no longer holds once it is said again.
  const { speaker: _speaker, keys: _keys, statusReason: _reason, ...current } = existing;
  return {
    ...current,
    kind: item.kind,
    value: item.value,
    content: item.content,
    entities: [...item.entities],
    confidence: item.confidence,
    importance: item.importance,
    ephemeral: item.ephemeral,
    pinned: isPinned(item, options),
    status: 'active',
    version: existing.version + 1,
    revision: existing.revision + 1,
    mentionCount: 1,
    sourceTurnIds: [...item.sourceTurnIds],
    ...speakerAndKeys(item),
    appliedItemIds: [...existing.appliedItemIds, item.itemId],
    validFrom: item.validFrom,
    validTo: null,
    updatedAt: options.recordedAt,
    lastSeenAt: item.validFrom,
    history: [...existing.history, previous],
  };
}

/** The user's pinned attributes, and every procedure: rules for the assistant hold whatever the question. */
function isPinned(item: ExtractedItem, options: ResolutionOptions): boolean {
  const pinnedAttributes = options.pinnedAttributes ?? DEFAULT_PINNED_ATTRIBUTES;
  if (item.operation !== 'assert') return false;
  return item.kind === 'procedure' || (item.subject === 'user' && pinnedAttributes.includes(item.attribute));
}

// ---- matching ------------------------------------------------------------------------------

/**
 * Values compare after NFKC, case and spacing are normalised, and money amounts compare by number:
 * "三万", "3万" and "30000" are one budget, so saying it again reinforces instead of superseding.
 */
export function sameValue(a: string, b: string): boolean {
  const amountA = amountToNumber(a);
  const amountB = amountToNumber(b);
  if (amountA !== null && amountB !== null) return amountA === amountB;
  return normaliseValue(a) === normaliseValue(b);
}

export function normaliseValue(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}]+/gu, '');
}

/** Jaccard over tokenize() terms, so Chinese and English measure alike; in [0, 1]. */
export function similarity(a: string, b: string): number {
  return jaccard(a, termsOf(a), b, termsOf(b));
}

/**
 * A text's term set as `[hash of its normalised form, ...ascending term ids]` (ids from `termIds`):
 * plain small-integer arrays are the most compact thing V8 keeps (a few hundred bytes a memory with
 * its key), so a user's whole memory list stays cached at 100k memories.
 */
type Terms = readonly number[];

/**
 * Each text's terms, remembered: the resolver compares every new item with every active memory of
 * the same subject and kind, and tokenizing (Intl.Segmenter, bigrams) each memory again per item
 * was a fifth of ingest CPU. Keyed by the text itself, so it is exact; bounded (oldest out first).
 */
const TERMS_CACHE_SIZE = 250_000;
const termsCache = new Map<string, Terms>();
const termIds = new Map<string, number>();
const MAX_VOCABULARY = 2_000_000;

function termsOf(text: string): Terms {
  const cached = termsCache.get(text);
  if (cached) return cached;
  if (termIds.size >= MAX_VOCABULARY) {
    // Ids are only meaningful with their dictionary: start both again (never reached by the bench).
    termIds.clear();
    termsCache.clear();
  }
  const ids = new Set<number>();
  for (const term of tokenize(text)) {
    let id = termIds.get(term);
    if (id === undefined) {
      id = termIds.size;
      termIds.set(term, id);
    }
    ids.add(id);
  }
  const terms = [hashOf(normaliseValue(text)), ...[...ids].sort((x, y) => x - y)];
  if (termsCache.size >= TERMS_CACHE_SIZE) termsCache.delete(termsCache.keys().next().value as string);
  termsCache.set(text, terms);
  return terms;
}

/** FNV-1a, 32 bits: only a shortcut, equal hashes are confirmed on the texts. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

function sameNormalised(a: string, left: Terms, b: string, right: Terms): boolean {
  return left[0] === right[0] && normaliseValue(a) === normaliseValue(b);
}

/** How many terms two term sets share (the hash in front is not a term). */
function sharedTerms(left: Terms, right: Terms): number {
  let shared = 0;
  for (let i = 1, j = 1; i < left.length && j < right.length;) {
    if (left[i] === right[j]) {
      shared++;
      i++;
      j++;
    } else if (left[i] < right[j]) i++;
    else j++;
  }
  return shared;
}

function jaccard(a: string, left: Terms, b: string, right: Terms): number {
  if (sameNormalised(a, left, b, right)) return normaliseValue(a) === '' ? 0 : 1;
  if (left.length === 1 || right.length === 1) return 0;
  const shared = sharedTerms(left, right);
  return shared / (left.length - 1 + right.length - 1 - shared);
}

/** The closest active memory of the same subject and kind, if close enough; ties go to the lower id. */
function nearDuplicate(item: ExtractedItem, state: ResolverState, threshold: number): MemoryRecord | null {
  const itemTerms = termsOf(item.content);
  let best: { memory: MemoryRecord; score: number } | null = null;
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.kind !== item.kind || memory.subject !== item.subject) continue;
    const memoryTerms = termsOf(memory.content);
    // Jaccard is at most min/max of the two set sizes: a text far longer or shorter cannot reach the
    // threshold, so it is not compared term by term (same result; equal texts are checked first).
    const large = Math.max(itemTerms.length, memoryTerms.length) - 1;
    if (large > 0 && (Math.min(itemTerms.length, memoryTerms.length) - 1) / large < threshold) {
      if (!sameNormalised(item.content, itemTerms, memory.content, memoryTerms)) continue;
    }
    const score = jaccard(item.content, itemTerms, memory.content, memoryTerms);
    if (score < threshold) continue;
    if (!best || score > best.score || (score === best.score && memory.memoryId < best.memory.memoryId)) {
      best = { memory, score };
    }
  }
  return best?.memory ?? null;
}

/** The subject's active memory seen most recently before the item; ties go to the higher id. */
function lastMentioned(item: ExtractedItem, state: ResolverState, shape: ValueShape | null): MemoryRecord | null {
  const at = Date.parse(item.validFrom);
  let best: { memory: MemoryRecord; seen: number } | null = null;
  for (const memory of state.values()) {
    const seen = Date.parse(memory.lastSeenAt);
    if (memory.status !== 'active' || memory.subject !== item.subject || seen > at) continue;
    if (memory.kind === 'episode' || (shape !== null && valueShape(memory.value) !== shape)) continue;
    if (!best || seen > best.seen || (seen === best.seen && memory.memoryId > best.memory.memoryId)) {
      best = { memory, seen };
    }
  }
  return best?.memory ?? null;
}

/**
 * Attributes an extractor scopes by what they are about (`budget:空气净化器`). An unscoped item of the
 * family ("预算提到五万了" after "买车预算三万") names no thing: it speaks of the scoped memory of that
 * family mentioned last, as people do, instead of adding a second, unscoped budget.
 */
const SCOPED_FAMILIES: readonly string[] = ['budget'];

/**
 * Families whose unscoped *correction* speaks of the scoped memory mentioned last: a plain statement
 * "the deadline is Friday" may be a new deadline, a corrected one ("…deadline moved to…") is not.
 */
const CORRECTED_FAMILIES: readonly string[] = ['budget', 'deadline'];

function latestScoped(item: ExtractedItem, state: ResolverState, families: readonly string[] = SCOPED_FAMILIES): MemoryRecord | undefined {
  if (!families.includes(item.attribute)) return undefined;
  const prefix = `${item.attribute}:`;
  const at = Date.parse(item.validFrom);
  let best: MemoryRecord | undefined;
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.subject !== item.subject || !memory.attribute.startsWith(prefix)) continue;
    if (Date.parse(memory.lastSeenAt) > at) continue;
    if (!best || memory.lastSeenAt > best.lastSeenAt || (memory.lastSeenAt === best.lastSeenAt && memory.memoryId > best.memoryId))
      best = memory;
  }
  return best;
}

export type ValueShape = 'amount' | 'schedule' | 'date' | 'time' | 'text';

/** What kind of value a string is, when it is nothing but that value. */
export function valueShape(value: string): ValueShape {
  const bare = value.trim();
  if (bare === '') return 'text';
  if (amountToNumber(bare) !== null) return 'amount';
  if (extractRecurrence(bare)?.value === bare) return 'schedule';
  if (extractDate(bare) === bare) return 'date';
  if (isTimeOfDay(bare)) return 'time';
  return 'text';
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
