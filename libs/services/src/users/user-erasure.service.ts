import { Inject, Injectable } from '@nestjs/common';
import { deterministicId, newEvent, Topics, UserForgotten } from '@engram/contracts';
import { Clock } from '@engram/ports';
import { DataKeyRing } from '../crypto';
import { EventPublisher } from '../pipeline/event-publisher';
import { encodePosition } from '../pipeline/pipeline-progress';

/** Forgetting a user, on the log: the UserForgotten tombstone every stage erases the user on, then crypto-shredding. */
@Injectable()
export class UserErasure {
  constructor(
    private readonly publisher: EventPublisher,
    @Inject(Clock) private readonly clock: Clock,
    private readonly keys: DataKeyRing,
  ) {}

  async forget(tenantId: string, userId: string): Promise<string> {
    const requestedAt = this.clock.now().toISOString();
    const eventId = deterministicId('forget', tenantId, userId, requestedAt);
    const event: UserForgotten = newEvent<UserForgotten>({
      eventId,
      type: 'UserForgotten',
      tenantId,
      userId,
      occurredAt: requestedAt,
      recordedAt: requestedAt,
      payload: { requestedAt },
    });
    const position = await this.publisher.publish(Topics.turns, [event]);
    // Access statistics are projected from memory.access.v1 alone: the tombstone goes there too,
    // so a rebuild of them forgets the user as well.
    await this.publisher.publish(Topics.access, [event]);
    return encodePosition(position);
  }

  /**
   * Crypto-shredding, once the projections are erased: every sealed event of the user, in every
   * topic and every later replay, is unreadable from here on (docs/security.md). The embedded
   * key store also checkpoints and truncates SQLite's write-ahead log, so the pages the erasure
   * zeroed replace every older copy on disk.
   */
  async shred(tenantId: string, userId: string): Promise<void> {
    await this.keys.destroy(tenantId, userId);
  }
}
