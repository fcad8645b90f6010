import { Inject, Injectable } from '@nestjs/common';
import {
  causedBy,
  deterministicId,
  EngramEvent,
  ForgettingRequested,
  MemoriesImportRequested,
  MemoryAdded,
  MemoryDecision,
  MemoryRecord,
  MemoryRetractionRequested,
  MemoryRevertRequested,
  newEvent,
  ProfileUpdateRequested,
  STAGES,
} from '@engram/contracts';
import {
  DEFAULT_PINNED_ATTRIBUTES,
  ForgettingDecider,
  MemoryControlDecider,
  profileExtraction,
  ResolutionDecider,
  ResolutionOptions,
  ResolverState,
  withoutInsights,
} from '@engram/domain';
import { EventLog, LogPosition, reached } from '@engram/ports';
import { EventPublisher } from './event-publisher';

/**
 * Commands to the resolver (forgetting, imports, the application's per-memory control and
 * profile facts). They travel on memory.extracted.v1 keyed by
 * user, so the resolver — the single writer of a user's memories — applies them in log order
 * with the user's extractions: no second writer races it, and every outcome is a decision
 * event on memory.facts.v1 that projections and rebuilds replay.
 */
export type MemoryCommand =
  ForgettingRequested | MemoriesImportRequested | MemoryRetractionRequested | MemoryRevertRequested | ProfileUpdateRequested;

const MEMORY_COMMAND_TYPES: ReadonlySet<string> = new Set<MemoryCommand['type']>([
  'ForgettingRequested',
  'MemoriesImportRequested',
  'MemoryRetractionRequested',
  'MemoryRevertRequested',
  'ProfileUpdateRequested',
]);

export function isMemoryCommand(event: EngramEvent): event is MemoryCommand {
  return MEMORY_COMMAND_TYPES.has(event.type);
}

/** What the resolver decides for a command, given the user's memories. Pure. */
export function decideMemoryCommand(command: MemoryCommand, state: ResolverState, resolution: ResolutionOptions): MemoryDecision[] {
  switch (command.type) {
    case 'ForgettingRequested':
      return ForgettingDecider.decide(command, state);
    case 'MemoriesImportRequested':
      return decideImport(command, state);
    case 'MemoryRetractionRequested':
    case 'MemoryRevertRequested':
      return MemoryControlDecider.decide(command, state);
    case 'ProfileUpdateRequested': {
      // Facts the application states are resolved like facts said in conversation (insights apart, as
      // there), and pinned: the application chose them for every prompt, as the seeds' save_profile.
      const stated = command.payload.attributes.map((a) => a.attribute);
      const pinnedAttributes = [...(resolution.pinnedAttributes ?? DEFAULT_PINNED_ATTRIBUTES), ...stated];
      return ResolutionDecider.decide(profileExtraction(command), withoutInsights(state), { ...resolution, pinnedAttributes });
    }
  }
}

/**
 * An imported memory is added with the state it had in the bundle. Re-importing is a no-op (same
 * deterministic id, revision not newer). A memory the user already holds under the same merge key
 * wins: an import never overwrites what this instance learned itself.
 */
export function decideImport(command: MemoriesImportRequested, state: ResolverState): MemoryDecision[] {
  const decisions: MemoryDecision[] = [];
  const taken = new Map([...state.values()].map((m) => [m.mergeKey, m.memoryId]));
  for (const memory of command.payload.memories) {
    const holder = taken.get(memory.mergeKey);
    if (holder !== undefined) continue; // already imported (same id) or known locally (another id)
    if (memory.tenantId !== command.tenantId || memory.userId !== command.userId) continue;
    taken.set(memory.mergeKey, memory.memoryId);
    const eventId = deterministicId('imported', command.tenantId, command.userId, memory.memoryId, memory.revision);
    const decision: MemoryAdded = newEvent<MemoryAdded>({
      ...causedBy(command),
      eventId,
      type: 'MemoryAdded',
      occurredAt: memory.validFrom,
      recordedAt: command.recordedAt,
      payload: { memory, itemId: null },
    });
    decisions.push(decision);
  }
  return decisions;
}

/** The id an imported memory takes in this tenant and user: stable, so a re-import changes nothing. */
export function importedMemoryId(tenantId: string, userId: string, mergeKey: string, bundleMemoryId: string): string {
  return deterministicId('memory', tenantId, userId, mergeKey, 'import', bundleMemoryId);
}

/** Re-keys a bundle's memory to this tenant and user. */
export function rekey(
  memory: Omit<MemoryRecord, 'tenantId' | 'userId' | 'appliedItemIds'>,
  tenantId: string,
  userId: string,
): MemoryRecord {
  return {
    ...memory,
    tenantId,
    userId,
    memoryId: importedMemoryId(tenantId, userId, memory.mergeKey, memory.memoryId),
    appliedItemIds: [],
  };
}

/** Publishes resolver commands and waits (bounded) until their decisions are visible to recall. */
@Injectable()
export class MemoryCommandPublisher {
  constructor(
    private readonly publisher: EventPublisher,
    @Inject(EventLog) private readonly eventLog: EventLog,
  ) {}

  publish(commands: readonly MemoryCommand[]): Promise<LogPosition> {
    return this.publisher.publish(STAGES.resolver.input, commands);
  }

  /** Resolver past `position` on the extracted topic, then the indexer past what the resolver had published. */
  async waitApplied(position: LogPosition, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const stages: { topic: string; group: string; target: () => Promise<LogPosition> }[] = [
      { topic: STAGES.resolver.input, group: STAGES.resolver.group, target: async () => position },
      {
        topic: STAGES.indexer.input,
        group: STAGES.indexer.group,
        target: () => this.eventLog.endPosition(this.publisher.topic(STAGES.indexer.input)),
      },
    ];
    for (const stage of stages) {
      const name = this.publisher.topic(stage.topic);
      const target = await stage.target();
      while (!reached(await this.eventLog.committedPosition(name, stage.group), target)) {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    return true;
  }
}
