import {
  causedBy,
  deterministicId,
  type MemoriesImportRequested,
  type MemoryAdded,
  type MemoryDecision,
  newEvent,
} from '@engram/contracts';
import type { Decider } from '../decider';
import { ResolutionDecider } from './resolution.decider';
import type { ResolverState } from './resolution.state';

/**
 * An imported memory is added with the state it had in the bundle. Re-importing is a no-op (same
 * deterministic id, revision not newer). A memory the user already holds under the same merge key
 * wins: an import never overwrites what this instance learned itself. A memory of another tenant
 * or user than the command's is left out: the service re-keyed the bundle to the command's user.
 */
function decide(command: MemoriesImportRequested, state: ResolverState): MemoryDecision[] {
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

/** Over the resolver's state and evolved like every resolver decision. */
export const MemoryImportDecider = {
  initialState: ResolutionDecider.initialState,
  decide,
  evolve: ResolutionDecider.evolve,
} as const satisfies Decider<MemoriesImportRequested, ResolverState, MemoryDecision>;
