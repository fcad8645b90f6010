import {
  causedBy,
  deterministicId,
  type ExtractedItem,
  type MemoriesExtracted,
  type MemoryDecision,
  type MemoryRecord,
  newEvent,
} from '@engram/contracts';
import type { Decider } from '../decider';
import { LAST_MENTIONED } from '../extraction/extraction.strategy';
import { deniesConstraint, resolveDenial, withConflict } from './resolution.conflicts';
import { correctsOthers, resolveAnaphora, resolveCorrection, resolveKeyed } from './resolution.rules';
import { isSensitive, type ResolutionOptions, type ResolverState } from './resolution.state';

export type { ResolutionOptions, ResolverState } from './resolution.state';

/**
 * The resolver: folds extracted items into the user's memories. Emmett-style decider — pure
 * `decide(command, state) → events` and `evolve(state, event) → state`; the adapter loads the
 * state, persists the events, and projections replay them without deciding again. The rules for
 * one item are resolution.rules.ts; the records they make, resolution.records.ts.
 */
function initialState(): ResolverState {
  return new Map();
}

function decide(command: MemoriesExtracted, state: ResolverState, options: ResolutionOptions): MemoryDecision[] {
  const decisions: MemoryDecision[] = [];
  // The state after each decision, as `evolve` would give it, but one copy of the caller's state for
  // the whole command: nothing keeps a state from one item to the next, so it is updated in place.
  let owned: Map<string, MemoryRecord> | null = null;
  const withheld = options.sensitiveFacts === 'off' ? sensitiveTurns(command) : null;
  for (const item of command.payload.items) {
    if (withheld && (isSensitive(item.attribute) || (item.kind === 'episode' && item.sourceTurnIds.some((t) => withheld.has(t))))) continue;
    const current: ResolverState = owned ?? state;
    const decision = decideItem(command, item, current, options);
    if (!decision) continue;
    const before = current.get(decision.payload.memory.memoryId);
    for (const next of [decision, ...retireEpisodes(command, item, before, decision, current, options)]) {
      decisions.push(next);
      if (newer(owned ?? state, next)) (owned ??= new Map(state)).set(next.payload.memory.memoryId, next.payload.memory);
    }
  }
  return decisions;
}

/**
 * The turns that stated a health fact, for a deployment that stores none (`sensitiveFacts: 'off'`):
 * neither the fact nor the episode of its turn is kept as a memory.
 */
function sensitiveTurns(command: MemoriesExtracted): ReadonlySet<string> {
  return new Set(command.payload.items.filter((item) => isSensitive(item.attribute)).flatMap((item) => item.sourceTurnIds));
}

/** Applies a decision if it is newer than what the state holds: replays and reorderings are no-ops. */
function evolve(state: ResolverState, event: MemoryDecision): ResolverState {
  if (!newer(state, event)) return state;
  const next = new Map(state);
  next.set(event.payload.memory.memoryId, event.payload.memory);
  return next;
}

/**
 * `events.reduce(evolve, state)` with at most one copy of the state: a copy per decision, three times
 * over (here, after the summary, in the stage), was a quarter of everything ingest allocated.
 */
function evolveAll(state: ResolverState, events: readonly MemoryDecision[]): ResolverState {
  let next: Map<string, MemoryRecord> | null = null;
  for (const event of events) {
    if (newer(next ?? state, event)) (next ??= new Map(state)).set(event.payload.memory.memoryId, event.payload.memory);
  }
  return next ?? state;
}

/** `evolveAll` on a state its caller alone holds (the resolver stage's own, between events): updated in place, no copy. */
function evolveOwned(state: Map<string, MemoryRecord>, events: readonly MemoryDecision[]): Map<string, MemoryRecord> {
  for (const event of events) if (newer(state, event)) state.set(event.payload.memory.memoryId, event.payload.memory);
  return state;
}

function newer(state: ResolverState, event: MemoryDecision): boolean {
  const { memory } = event.payload;
  const existing = state.get(memory.memoryId);
  return !existing || existing.revision < memory.revision;
}

export const ResolutionDecider = { initialState, decide, evolve, evolveAll, evolveOwned } as const satisfies Decider<
  MemoriesExtracted,
  ResolverState,
  MemoryDecision,
  ResolutionOptions
> & { evolveAll: typeof evolveAll; evolveOwned: typeof evolveOwned };

// ---- one item ------------------------------------------------------------------------------

function decideItem(
  command: MemoriesExtracted,
  item: ExtractedItem,
  state: ResolverState,
  options: ResolutionOptions,
): MemoryDecision | null {
  // Checked across all memories: a near-duplicate or anaphoric item lands away from its own key.
  if ([...state.values()].some((m) => m.appliedItemIds.includes(item.itemId))) return null;
  const change = deniesConstraint(item)
    ? resolveDenial(item, state, options)
    : correctsOthers(item)
      ? resolveCorrection(command, item, state, options)
      : item.attribute === LAST_MENTIONED
        ? resolveAnaphora(item, state, options)
        : resolveKeyed(command, item, state, options);
  if (!change) return null;
  // Two statements that cannot both hold: the newer is current, noted until the user confirms it.
  const memory = withConflict(change.type, state.get(change.memory.memoryId), change.memory);
  return decisionOn(command, item, change.type, memory, options);
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
