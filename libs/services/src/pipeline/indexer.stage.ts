import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, MemoryDecision, STAGES, subscriptionOf, UserForgotten } from '@engram/contracts';
import { SearchProjection } from './search.projection';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';

/** facts → search index. */
@StageController()
export class IndexerStage {
  constructor(private readonly search: SearchProjection) {}

  @EventPattern(subscriptionOf(STAGES.indexer))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    await this.search.apply(batch.events as (EngramEvent & (MemoryDecision | UserForgotten))[]);
  }
}
