import type {
  EngramEvent,
  ForgettingRequested,
  MemoriesExtracted,
  MemoriesImportRequested,
  MemoryDecision,
  MemoryRecord,
  MemoryRetractionRequested,
  MemoryRevertRequested,
  MemoryConfirmRequested,
  ProfileUpdateRequested,
  UserForgotten,
} from '@engram/contracts';
import type { Decider } from '../decider';
import { ForgettingDecider } from '../forgetting/forgetting.decider';
import { type CompiledInsightRules, InsightDecider, withoutInsights } from '../insights/insights';
import { SummaryDecider, type SummaryMaterial, type SummaryOptions, type SummaryReview } from '../summaries/session-summary';
import { type EntityAliasTable, findEntities } from '../text/entity-aliases';
import { MemoryControlDecider, profileExtraction } from './memory-control.decider';
import { MemoryImportDecider } from './memory-import.decider';
import { ResolutionDecider } from './resolution.decider';
import { DEFAULT_PINNED_ATTRIBUTES, type ResolutionOptions, type ResolverState } from './resolution.state';

/*
 * The resolver stage's decider: everything the resolver consumes, from one user's memories to the
 * decisions it publishes on memory.facts.v1. It only chooses which deciders an event goes through
 * and in what order; each of them decides its own part:
 *
 * 1. a `UserForgotten` is passed on unchanged (same id: downstream stays idempotent), and the
 *    user's state starts again from nothing;
 * 2. an extraction is resolved item by item (`ResolutionDecider`), its items' entities first given
 *    the canonical names of what they mention; a command goes to its own decider (`MemoryCommand`
 *    below); item resolution never sees insights — they are derived, not said, so "that's no
 *    longer true" cannot land on one;
 * 3. if that changed nothing, nothing follows; after an extraction, the session's summary when its
 *    turns pushed older ones out of the recent window (`SummaryDecider`);
 * 4. then the insights, on the state all of that left, caused by the decisions of step 2
 *    (`InsightDecider`).
 *
 * Per event, not per batch, so how a redelivered batch is cut does not change what is decided.
 * Every decision is recorded at the event's own `recordedAt`, so a replay decides the same.
 *
 * A summary a model words (`ENGRAM_SUMMARIZER=llm`) is the one step that waits: `begin` decides
 * up to it and hands back what the writer needs, `resume` finishes with the lines written. `decide`
 * words summaries extractively and is the whole decision at once.
 */

/**
 * Commands to the resolver besides extractions: forgetting, imports, the application's per-memory
 * control and profile facts. They travel on memory.extracted.v1 keyed by user, so the resolver —
 * the single writer of a user's memories — applies them in log order with the user's extractions:
 * no second writer races it, and every outcome is a decision event that projections and rebuilds replay.
 */
export type MemoryCommand =
  | ForgettingRequested
  | MemoriesImportRequested
  | MemoryRetractionRequested
  | MemoryRevertRequested
  | MemoryConfirmRequested
  | ProfileUpdateRequested;

/** What the resolver acts on, of all that memory.extracted.v1 carries. */
export type ResolverCommand = MemoriesExtracted | UserForgotten | MemoryCommand;

/** What it decides: decisions on the user's memories, and the user's erasure passed on. */
export type ResolverEvent = MemoryDecision | UserForgotten;

export interface ResolverDeciderOptions extends Omit<ResolutionOptions, 'recordedAt'> {
  /** The configured aliases (not the learned ones), so a decision is a function of the event and the configuration. */
  readonly entityAliases: EntityAliasTable;
  /** The recent window and how often and how long a session's summary is. */
  readonly summary: Omit<SummaryOptions, 'recordedAt'>;
  /** The insight rules; null when insights are off. */
  readonly insightRules: CompiledInsightRules | null;
}

/** One event decided (`done`), or decided up to a summary for a writer to word (`summaryDue`, then `resume`). */
export type ResolverStep =
  { readonly done: ResolverEvent[] } | { readonly summaryDue: SummaryMaterial; resume(lines: readonly string[]): ResolverEvent[] };

/** Every command type, once; a record, so the compiler names one that is left out. */
const MEMORY_COMMAND_TYPES: Readonly<Record<MemoryCommand['type'], true>> = {
  ForgettingRequested: true,
  MemoriesImportRequested: true,
  MemoryRetractionRequested: true,
  MemoryRevertRequested: true,
  MemoryConfirmRequested: true,
  ProfileUpdateRequested: true,
};

export function isMemoryCommand(event: EngramEvent): event is MemoryCommand {
  return Object.hasOwn(MEMORY_COMMAND_TYPES, event.type);
}

export function isResolverCommand(event: EngramEvent): event is ResolverCommand {
  return event.type === 'MemoriesExtracted' || event.type === 'UserForgotten' || isMemoryCommand(event);
}

function initialState(): ResolverState {
  return ResolutionDecider.initialState();
}

/** The whole decision for one event, summaries worded extractively. Pure. */
function decide(command: ResolverCommand, state: ResolverState, options: ResolverDeciderOptions): ResolverEvent[] {
  const step = upToSummary(command, state, options);
  if ('done' in step) return step.done;
  const { review, state: changed, options: summaryOptions, finish } = step.summarising;
  return finish(SummaryDecider.decide(review, changed, summaryOptions));
}

/** The same decision, paused where a session's summary is due, for a writer to word it. Pure. */
export function begin(command: ResolverCommand, state: ResolverState, options: ResolverDeciderOptions): ResolverStep {
  const step = upToSummary(command, state, options);
  if ('done' in step) return step;
  const { review, state: changed, options: summaryOptions, finish } = step.summarising;
  const due = SummaryDecider.due(review, changed, summaryOptions);
  if (!due) return { done: finish([]) };
  return { summaryDue: due.material, resume: (lines) => finish([SummaryDecider.written(due, lines, summaryOptions)]) };
}

/** A forgotten user starts again from nothing; any other decision as the resolution decider applies it. */
function evolve(state: ResolverState, event: ResolverEvent): ResolverState {
  return event.type === 'UserForgotten' ? initialState() : ResolutionDecider.evolve(state, event);
}

/**
 * `events.reduce(evolve, state)` on a state its caller alone holds (the resolver stage's own, between
 * events): updated in place, no copy; only what follows the last forgetting counts.
 */
function evolveOwned(state: Map<string, MemoryRecord>, events: readonly ResolverEvent[]): Map<string, MemoryRecord> {
  const forgotten = events.findLastIndex((event) => event.type === 'UserForgotten');
  if (forgotten >= 0) state.clear();
  return ResolutionDecider.evolveOwned(state, (forgotten < 0 ? events : events.slice(forgotten + 1)) as readonly MemoryDecision[]);
}

export const ResolverDecider = { initialState, decide, evolve, evolveOwned, begin } as const satisfies Decider<
  ResolverCommand,
  ResolverState,
  ResolverEvent,
  ResolverDeciderOptions
> & { begin: typeof begin; evolveOwned: typeof evolveOwned };

/** An extraction that changed something, at the point its session's summary is considered. */
interface Summarising {
  readonly review: SummaryReview;
  /** The user's memories after the extraction's decisions. */
  readonly state: ResolverState;
  readonly options: SummaryOptions;
  /** The event's decisions once the summary is known (none, or one). */
  finish(summary: MemoryDecision[]): ResolverEvent[];
}

/** Steps 1–3: done, or an extraction's decisions waiting for the summary. */
function upToSummary(
  command: ResolverCommand,
  state: ResolverState,
  options: ResolverDeciderOptions,
): { readonly done: ResolverEvent[] } | { readonly summarising: Summarising } {
  if (command.type === 'UserForgotten') return { done: [command] };
  const changes = changesOf(command, state, options);
  if (changes.length === 0) return { done: [] };
  const changed = ResolutionDecider.evolveAll(state, changes);
  const finish = (summary: MemoryDecision[]): ResolverEvent[] => [
    ...changes,
    ...summary,
    ...insightsAfter(command, changes, ResolutionDecider.evolveAll(changed, summary), options),
  ];
  if (command.type !== 'MemoriesExtracted') return { done: finish([]) };
  // The turns this extraction brought may push older ones out of the session's recent window.
  const review: SummaryReview = {
    tenantId: command.tenantId,
    userId: command.userId,
    sessionId: command.payload.sessionId,
    triggerId: command.eventId,
    correlationId: command.correlationId,
  };
  return { summarising: { review, state: changed, options: { ...options.summary, recordedAt: command.recordedAt }, finish } };
}

/** What an extraction or a command changes in the user's memories, by the decider that owns it. */
function changesOf(command: MemoriesExtracted | MemoryCommand, state: ResolverState, options: ResolverDeciderOptions): MemoryDecision[] {
  // Every resolution option (threshold, pinning, sensitive facts) as given, at the event's instant.
  const { entityAliases, summary: _summary, insightRules: _insightRules, ...given } = options;
  const resolution: ResolutionOptions = { ...given, recordedAt: command.recordedAt };
  switch (command.type) {
    case 'MemoriesExtracted':
      return ResolutionDecider.decide(withCanonicalEntities(command, entityAliases), withoutInsights(state), resolution);
    case 'ForgettingRequested':
      return ForgettingDecider.decide(command, state);
    case 'MemoriesImportRequested':
      return MemoryImportDecider.decide(command, state);
    case 'MemoryRetractionRequested':
    case 'MemoryRevertRequested':
    case 'MemoryConfirmRequested':
      return MemoryControlDecider.decide(command, state);
    case 'ProfileUpdateRequested': {
      // Facts the application states are resolved like facts said in conversation (insights apart, as
      // there), and pinned: the application chose them for every prompt, as the seeds' save_profile.
      const stated = command.payload.attributes.map((a) => a.attribute);
      const pinnedAttributes = [...(options.pinnedAttributes ?? DEFAULT_PINNED_ATTRIBUTES), ...stated];
      return ResolutionDecider.decide(profileExtraction(command), withoutInsights(state), { ...resolution, pinnedAttributes });
    }
  }
}

/** The insights derived, updated or retracted once `changes` (and any summary) left the user's memories as `state`. */
function insightsAfter(
  command: MemoriesExtracted | MemoryCommand,
  changes: readonly MemoryDecision[],
  state: ResolverState,
  options: ResolverDeciderOptions,
): MemoryDecision[] {
  if (!options.insightRules) return [];
  const review = {
    tenantId: command.tenantId,
    userId: command.userId,
    triggerId: command.eventId,
    correlationId: command.correlationId,
    occurredAt: command.occurredAt,
    changes,
  };
  return InsightDecider.decide(review, state, { rules: options.insightRules, recordedAt: command.recordedAt });
}

/**
 * Normalised entities are part of the memory: before the resolver decides, each extracted item's
 * entities gain the canonical names of what it mentions, so the fact store, the index, ranking's
 * term coverage and exports all carry "Oracle" for "甲骨文数据库".
 */
function withCanonicalEntities(event: MemoriesExtracted, table: EntityAliasTable): MemoriesExtracted {
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
