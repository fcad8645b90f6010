import { BadRequestException, Controller, Delete, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ConsistencyOptions } from '@engram/config';
import { AccessStore, FactStore, SearchIndex, SessionStore } from '@engram/ports';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { decodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import { TenantId } from '../http/tenancy';
import { checkUserId } from './user-id';
import { ListUsersQuery, TURN_IDS_QUERY_SCHEMA, TurnListResponse, TURNS_BY_ID_MAX, TurnsByIdQuery, UserListResponse } from './users.dto';
import { ApiErrors, ApiIdParam, LogWrite, TenantRoute } from '../http/api-contract';
import { MemoryRecordView } from './memory-control.dto';
import { UserErasure } from './user-erasure.service';

class UserMemoriesResponse {
  @ApiProperty({ type: [MemoryRecordView] }) memories!: MemoryRecordView[];
}

class ForgetUserResponse {
  @ApiProperty({ enum: [true] }) forgotten!: true;
  @ApiProperty({ description: 'The UserForgotten event in the log, as a consistency token.' }) position!: string;
}

@ApiTags('users')
@TenantRoute()
@Controller('v1/users')
export class UsersController {
  constructor(
    private readonly erasure: UserErasure,
    private readonly progress: PipelineProgress,
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(SearchIndex) private readonly search: SearchIndex,
    @Inject(AccessStore) private readonly access: AccessStore,
    private readonly aliases: EntityAliases,
  ) {}

  @Get()
  @ApiOperation({ summary: "The tenant's users holding memories, a page at a time, sorted by id." })
  @ApiOkResponse({ type: UserListResponse })
  @ApiErrors({ 400: '`limit` not an integer in 1-200, or a malformed `after`.' })
  async list(@TenantId() tenantId: string, @Query() query: ListUsersQuery): Promise<UserListResponse> {
    const limit = query.limit ?? 50;
    // One more than asked says whether another page follows.
    const users = await this.facts.usersOf(tenantId, { after: query.after, limit: limit + 1 });
    return { users: users.slice(0, limit), next: users.length > limit ? users[limit - 1] : null };
  }

  @Get(':userId/memories')
  @ApiOperation({ summary: "A user's memories, each with its version history." })
  @ApiIdParam('userId')
  @ApiQuery({ name: 'status', required: false, enum: ['active', 'all'] })
  @ApiOkResponse({ type: UserMemoriesResponse })
  @ApiErrors({ 400: 'A malformed `userId`, or `status` is not active or all.' })
  async memories(
    @TenantId() tenantId: string,
    @Param('userId') userId: string,
    @Query('status') status?: string,
  ): Promise<UserMemoriesResponse> {
    if (status !== undefined && status !== 'active' && status !== 'all') {
      throw new BadRequestException({ message: ['status must be one of: active, all'], fields: ['status'] });
    }
    const memories = await this.facts.list({
      tenantId,
      userId: checkUserId(userId),
      ...(status === 'all' ? {} : { statuses: ['active'] }),
    });
    // appliedItemIds is the resolver's bookkeeping, not the user's data.
    return { memories: memories.map(({ appliedItemIds: _bookkeeping, ...memory }) => memory as unknown as MemoryRecordView) };
  }

  @Get(':userId/turns')
  @ApiOperation({ summary: "A user's turns by id, in any session: what a memory was said in (its sourceTurnIds)." })
  @ApiIdParam('userId')
  @ApiQuery({
    name: 'ids',
    required: true,
    schema: TURN_IDS_QUERY_SCHEMA,
    style: 'form',
    explode: true,
    description: `Turn ids, the parameter repeated (at most ${TURNS_BY_ID_MAX}).`,
    example: ['t1', 't4'],
  })
  @ApiOkResponse({ type: TurnListResponse })
  @ApiErrors({ 400: 'A malformed `userId`, or `ids` missing, more than 100, or malformed.' })
  async turns(@TenantId() tenantId: string, @Param('userId') userId: string, @Query() query: TurnsByIdQuery): Promise<TurnListResponse> {
    const turns = await this.sessions.turnsById(tenantId, checkUserId(userId), query.ids);
    return { turns: turns.map(({ tenantId: _tenant, userId: _user, ...turn }) => turn) };
  }

  @Delete(':userId')
  @LogWrite()
  @ApiOperation({
    summary: 'Forget a user in every store and projection.',
    description: 'Writes UserForgotten to the log (so rebuilds honour it) and erases the projections at once.',
  })
  @ApiIdParam('userId')
  @ApiOkResponse({ type: ForgetUserResponse })
  @ApiErrors({ 400: 'A malformed `userId`.' })
  async forget(@TenantId() tenantId: string, @Param('userId') userId: string): Promise<ForgetUserResponse> {
    checkUserId(userId);
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
    this.aliases.changed(this.facts, tenantId, userId);
  }
}
