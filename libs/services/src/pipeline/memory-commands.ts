import { Inject, Injectable } from '@nestjs/common';
import { deterministicId, MemoryRecord, STAGES } from '@engram/contracts';
import type { MemoryCommand } from '@engram/domain';
import { EventLog, LogPosition, reached } from '@engram/ports';
import { EventPublisher } from './event-publisher';

/*
 * Commands to the resolver (forgetting, imports, the application's per-memory control and profile
 * facts): publishing them and waiting for their decisions. What the resolver decides for each is
 * the domain's (`ResolverDecider`, libs/domain/src/resolution/resolver.decider.ts); the command
 * types are re-exported here for the services that send them.
 */
export { isMemoryCommand, type MemoryCommand } from '@engram/domain';

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
