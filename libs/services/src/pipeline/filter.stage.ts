import { Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, STAGES, subscriptionOf, TurnScreened, UserForgotten } from '@engram/contracts';
import { ScreeningConfig, ScreeningDecider } from '@engram/domain';
import { EventPublisher } from './event-publisher';
import { forward } from './segments';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';

export const SCREENING_CONFIG = Symbol('ScreeningConfig');

/** turns → screened: every turn gets a verdict (accepted or not) with its reasons; PII is masked. */
@StageController()
export class FilterStage {
  constructor(
    private readonly publisher: EventPublisher,
    @Inject(SCREENING_CONFIG) private readonly screening: ScreeningConfig,
  ) {}

  @EventPattern(subscriptionOf(STAGES.filter))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    const out: (TurnScreened | UserForgotten)[] = [];
    for (const event of batch.events as EngramEvent[]) {
      if (event.type === 'TurnRecorded')
        out.push(
          ...ScreeningDecider.decide(event, ScreeningDecider.initialState(), { config: this.screening, recordedAt: event.recordedAt }),
        );
      else if (event.type === 'UserForgotten') out.push(forward(event));
    }
    await this.publisher.publish(STAGES.filter.output, out);
  }
}
