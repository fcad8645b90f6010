import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, MemoryDecision, Topics, UserForgotten } from '@engram/contracts';
import { SearchProjection } from './search.projection';
import type { StageBatch } from '../transport/event-log.transport';

/** facts → search index. */
@Controller()
export class IndexerStage {
  constructor(private readonly search: SearchProjection) {}

  @EventPattern({ topic: Topics.facts, group: 'indexer' })
  async handle(@Payload() batch: StageBatch): Promise<void> {
    await this.search.apply(batch.events as (EngramEvent & (MemoryDecision | UserForgotten))[]);
  }
}
