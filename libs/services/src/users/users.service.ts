import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { FactStore, SessionStore } from '@engram/ports';
import type { MemoryRecordView } from './memory-control.dto';
import type { ListUsersQuery, TurnListResponse, UserListResponse } from './users.dto';

/** What `GET /v1/users…` reads: a tenant's users a page at a time, a user's memories and turns. */
@Injectable()
export class UsersService {
  constructor(
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(SessionStore) private readonly sessions: SessionStore,
  ) {}

  async list(tenantId: string, query: ListUsersQuery): Promise<UserListResponse> {
    const limit = query.limit ?? 50;
    // One more than asked says whether another page follows.
    const users = await this.facts.usersOf(tenantId, { after: query.after, limit: limit + 1 });
    return { users: users.slice(0, limit), next: users.length > limit ? users[limit - 1] : null };
  }

  /** Active memories, or with `all` every status; `status` comes from the query string, so it is checked here. */
  async memories(tenantId: string, userId: string, status?: string): Promise<{ memories: MemoryRecordView[] }> {
    if (status !== undefined && status !== 'active' && status !== 'all') {
      throw new BadRequestException({ message: ['status must be one of: active, all'], fields: ['status'] });
    }
    const memories = await this.facts.list({ tenantId, userId, ...(status === 'all' ? {} : { statuses: ['active'] }) });
    // appliedItemIds is the resolver's bookkeeping, not the user's data.
    return { memories: memories.map(({ appliedItemIds: _bookkeeping, ...memory }) => memory as unknown as MemoryRecordView) };
  }

  async turns(tenantId: string, userId: string, turnIds: readonly string[]): Promise<TurnListResponse> {
    const turns = await this.sessions.turnsById(tenantId, userId, turnIds);
    return { turns: turns.map(({ tenantId: _tenant, userId: _user, ...turn }) => turn) };
  }
}
