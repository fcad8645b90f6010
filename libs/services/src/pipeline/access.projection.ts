import { Inject, Injectable } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, STAGES, subscriptionOf } from '@engram/contracts';
import { AccessStore } from '@engram/ports';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';
import type { Projection } from './projection';

/** Hit counts and last access, projected from recall's access events (never written on the read path). */
@Injectable()
export class AccessProjection implements Projection {
  readonly name = 'access';

  constructor(@Inject(AccessStore) private readonly store: AccessStore) {}

  async apply(events: readonly EngramEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === 'MemoriesAccessed') {
        await this.store.record(event.eventId, event.tenantId, event.userId, event.payload.memoryIds, event.payload.accessedAt);
      } else if (event.type === 'UserForgotten') {
        await this.store.deleteUser(event.tenantId, event.userId);
      }
    }
  }

  truncate(): Promise<void> {
    return this.store.truncate();
  }
}

@StageController()
export class AccessStage {
  constructor(private readonly access: AccessProjection) {}

  @EventPattern(subscriptionOf(STAGES.access))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    await this.access.apply(batch.events);
  }
}
