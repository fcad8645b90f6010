import type { EngramEventType } from './events';
import { MEMORY_DECISION_TYPES } from './events';
import { TopicName, Topics } from './topics';

/**
 * The pipeline's shape, declared once: every stage (a consumer group reading one topic) and every
 * projection (a store built from one topic). The stages' `@EventPattern`s, what they publish,
 * pipeline progress and `after` waits, the lag metrics, the topic catalogue's receivers (so the
 * AsyncAPI document), the offline rebuild, online rebuilds and reprocessing all read it here
 * instead of naming topics and groups themselves. Names are before the deployment's prefix.
 *
 * To add a stage: declare it in `STAGES` (its app, input, group, output, the events it acts on),
 * give its controller `@EventPattern(subscriptionOf(STAGES.<name>))` and put the controller in its
 * worker module (`libs/services/src/stage.modules.ts`). To add a projection: declare it
 * in `PROJECTIONS` too, and register it for replays (`libs/services/src/replay/replay-projections.ts`).
 */

/** A deployable that reads the log (`apps/*`). */
export type StageService = 'filter' | 'extractor' | 'resolver' | 'indexer';

export interface StageDeclaration {
  /** The stage's name: its consumer group, its `stage` label in metrics, logs and dead letters. */
  readonly group: string;
  /** The worker app serving it. */
  readonly service: StageService;
  readonly input: TopicName;
  /** Where its results go; none for a stage that only projects. */
  readonly output?: TopicName;
  /** The events of its input it acts on; it passes over the others. */
  readonly handles: readonly EngramEventType[];
  /** On the way from a turn to recall: `after` waits for it, and its lag is `pending`. */
  readonly readPath: boolean;
  /** One line for the AsyncAPI document's receive operation. */
  readonly summary: string;
}

const MEMORY_COMMAND_TYPES: readonly EngramEventType[] = [
  'ForgettingRequested',
  'MemoriesImportRequested',
  'MemoryRetractionRequested',
  'MemoryRevertRequested',
  'MemoryConfirmRequested',
  'ProfileUpdateRequested',
];

/** Every stage, in pipeline order (stages reading the same topic in the order the catalogue lists them). */
export const STAGES = {
  filter: {
    group: 'filter',
    service: 'filter',
    input: Topics.turns,
    output: Topics.screened,
    handles: ['TurnRecorded', 'UserForgotten'],
    readPath: true,
    summary: 'screens each turn',
  },
  extractor: {
    group: 'extractor',
    service: 'extractor',
    input: Topics.screened,
    output: Topics.extracted,
    handles: ['TurnScreened', 'UserForgotten'],
    readPath: true,
    summary: 'extracts memories from accepted turns',
  },
  sessions: {
    group: 'sessions',
    service: 'indexer',
    input: Topics.screened,
    handles: ['TurnScreened', 'UserForgotten'],
    readPath: true,
    summary: 'the sessions projection (recent turns, summaries)',
  },
  resolver: {
    group: 'resolver',
    service: 'resolver',
    input: Topics.extracted,
    output: Topics.facts,
    handles: ['MemoriesExtracted', 'UserForgotten', ...MEMORY_COMMAND_TYPES],
    readPath: true,
    summary: 'decides against what is known and writes the facts store',
  },
  indexer: {
    group: 'indexer',
    service: 'indexer',
    input: Topics.facts,
    handles: [...MEMORY_DECISION_TYPES, 'UserForgotten'],
    readPath: true,
    summary: 'the search projection',
  },
  access: {
    group: 'access',
    service: 'indexer',
    input: Topics.access,
    handles: ['MemoriesAccessed', 'UserForgotten'],
    readPath: false,
    summary: 'the access projection (hits, last access)',
  },
} as const satisfies Record<string, StageDeclaration>;

export type StageName = keyof typeof STAGES;

/** The `@EventPattern` a stage's handler subscribes with. */
export function subscriptionOf(stage: StageDeclaration): { readonly topic: string; readonly group: string } {
  return { topic: stage.input, group: stage.group };
}

export interface ProjectionDeclaration {
  readonly name: string;
  readonly input: TopicName;
  /**
   * The consumer group that feeds it in normal operation, which an offline rebuild replays on so
   * the live stage goes on from the end. Facts has none (the resolver applies its own decisions):
   * its rebuild has a group of its own.
   */
  readonly group: string;
  /** Kept in versions (`ProjectionVersions`): rebuilt online and reprocessed beside the serving one. */
  readonly versioned: boolean;
}

/** Every projection, in the order an offline rebuild replays them (facts before search). */
export const PROJECTIONS = {
  facts: { name: 'facts', input: Topics.facts, group: 'facts-rebuild', versioned: true },
  sessions: { name: 'sessions', input: Topics.screened, group: STAGES.sessions.group, versioned: true },
  search: { name: 'search', input: Topics.facts, group: STAGES.indexer.group, versioned: true },
  access: { name: 'access', input: Topics.access, group: STAGES.access.group, versioned: false },
} as const satisfies Record<string, ProjectionDeclaration>;

export type ProjectionName = keyof typeof PROJECTIONS;

export const PROJECTION_NAMES = Object.keys(PROJECTIONS) as readonly ProjectionName[];

/** The stages between a turn and recall, by input topic in pipeline order: what `after` waits for and `pending` counts. */
export function readPath(): { readonly topic: TopicName; readonly groups: readonly string[] }[] {
  const path: { topic: TopicName; groups: string[] }[] = [];
  for (const stage of Object.values(STAGES) as readonly StageDeclaration[]) {
    if (!stage.readPath) continue;
    const step = path.find((s) => s.topic === stage.input);
    if (step) step.groups.push(stage.group);
    else path.push({ topic: stage.input, groups: [stage.group] });
  }
  return path;
}

/** The stages reading a topic, as the topic catalogue lists its receivers. */
export function stagesReading(topic: TopicName): StageDeclaration[] {
  return (Object.values(STAGES) as readonly StageDeclaration[]).filter((s) => s.input === topic);
}
