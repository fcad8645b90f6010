import { Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, MemoriesExtracted, STAGES, subscriptionOf, UserForgotten } from '@engram/contracts';
import { ExtractionOptions } from '@engram/config';
import { defaultTimeScopes, ExtractionStrategy, extractTurn, type TimeScopes } from '@engram/domain';
import { EventPublisher } from './event-publisher';
import { forward } from './segments';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';

export const EXTRACTION_STRATEGY = Symbol('ExtractionStrategy');

/** screened → extracted: accepted turns become one-fact-per-item memories. */
@StageController()
export class ExtractorStage {
  private readonly scopes: TimeScopes;

  constructor(
    private readonly publisher: EventPublisher,
    @Inject(EXTRACTION_STRATEGY) private readonly strategy: ExtractionStrategy,
    @Inject(ExtractionOptions) options: ExtractionOptions,
  ) {
    this.scopes = { ...defaultTimeScopes, workingMemoryMinutes: options.ENGRAM_WORKING_MEMORY_MINUTES };
  }

  @EventPattern(subscriptionOf(STAGES.extractor))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    const out: (MemoriesExtracted | UserForgotten)[] = [];
    for (const event of batch.events as EngramEvent[]) {
      if (event.type === 'TurnScreened') {
        const extracted = await extractTurn(event, this.strategy, event.recordedAt, this.scopes);
        if (extracted) out.push(extracted);
      } else if (event.type === 'UserForgotten') {
        out.push(forward(event));
      }
    }
    await this.publisher.publish(STAGES.extractor.output, out);
  }
}
