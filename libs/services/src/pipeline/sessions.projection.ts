import { Inject, Injectable } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EngramEvent, STAGES, subscriptionOf, TurnScreened, UserForgotten } from '@engram/contracts';
import { SessionStore } from '@engram/ports';
import { applyInSegments } from './segments';
import type { StageBatch } from '../transport/event-log.transport';
import { StageController } from '../transport/rpc-passthrough.filter';
import type { Projection } from './projection';

/**
 * The sessions projection reads the screened topic rather than the raw turns:
 * every turn is there (accepted or not) and its text is already masked, even
 * when a producer wrote straight to the log without the gateway.
 */
@Injectable()
export class SessionsProjection implements Projection {
  readonly name = 'sessions';

  constructor(@Inject(SessionStore) private readonly store: SessionStore) {}

  async apply(events: readonly EngramEvent[]): Promise<void> {
    const relevant = events.filter((e): e is TurnScreened | UserForgotten => e.type === 'TurnScreened' || e.type === 'UserForgotten');
    await applyInSegments<TurnScreened>(
      relevant,
      async (run) =>
        this.store.append(
          run.map(({ tenantId, userId, occurredAt, payload }) => ({
            tenantId,
            userId,
            sessionId: payload.sessionId,
            turnId: payload.turnId,
            role: payload.role,
            ...(payload.speaker !== undefined ? { speaker: payload.speaker } : {}),
            text: payload.text,
            occurredAt,
          })),
        ),
      async (forget) => this.store.deleteUser(forget.tenantId, forget.userId),
    );
  }

  truncate(): Promise<void> {
    return this.store.truncate();
  }
}

@StageController()
export class SessionsStage {
  constructor(private readonly sessions: SessionsProjection) {}

  @EventPattern(subscriptionOf(STAGES.sessions))
  async handle(@Payload() batch: StageBatch): Promise<void> {
    await this.sessions.apply(batch.events);
  }
}
