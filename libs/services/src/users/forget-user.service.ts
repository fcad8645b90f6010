import { Inject, Injectable } from '@nestjs/common';
import { ConsistencyOptions } from '@engram/config';
import { AccessStore, FactStore, SearchIndex, SessionStore } from '@engram/ports';
import { decodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import { UserErasure } from './user-erasure.service';

export interface UserForgottenAnswer {
  readonly forgotten: true;
  /** The UserForgotten event in the log, as a consistency token. */
  readonly position: string;
}

/**
 * `DELETE /v1/users/:userId`: forget a user in every store and projection. UserForgotten goes to
 * the log first (so rebuilds and every stage honour it), then the projections are erased at once,
 * then, once the stages have seen it, the user's data key is destroyed (crypto-shredding).
 */
@Injectable()
export class ForgetUserService {
  constructor(
    private readonly erasure: UserErasure,
    private readonly progress: PipelineProgress,
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(SearchIndex) private readonly search: SearchIndex,
    @Inject(AccessStore) private readonly access: AccessStore,
  ) {}

  async forget(tenantId: string, userId: string): Promise<UserForgottenAnswer> {
    const position = await this.erasure.forget(tenantId, userId);
    await this.erase(tenantId, userId);
    // Anything already in flight for this user is erased again when UserForgotten reaches each stage;
    // wait (bounded) for that so the answer is true when it arrives.
    await this.progress.waitFor(decodePosition(position)!, this.consistency.afterTimeoutMs);
    await this.erasure.shred(tenantId, userId);
    return { forgotten: true, position };
  }

  private async erase(tenantId: string, userId: string): Promise<void> {
    await Promise.all([
      this.facts.deleteUser(tenantId, userId),
      this.sessions.deleteUser(tenantId, userId),
      this.search.deleteUser(tenantId, userId),
      this.access.deleteUser(tenantId, userId),
    ]);
  }
}
