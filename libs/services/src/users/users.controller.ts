import { Controller, Delete, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { TenantId } from '../http/tenancy';
import { ListUsersQuery, TURN_IDS_QUERY_SCHEMA, TurnListResponse, TURNS_BY_ID_MAX, TurnsByIdQuery, UserListResponse } from './users.dto';
import { ApiErrors, ApiIdParam, LogWrite, PathId, TenantRoute } from '../http/api-contract';
import { MemoryRecordView } from './memory-control.dto';
import { UsersService } from './users.service';
import { ForgetUserService } from './forget-user.service';

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
    private readonly users: UsersService,
    private readonly forgetting: ForgetUserService,
  ) {}

  @Get()
  @ApiOperation({ summary: "The tenant's users holding memories, a page at a time, sorted by id." })
  @ApiOkResponse({ type: UserListResponse })
  @ApiErrors({ 400: '`limit` not an integer in 1-200, or a malformed `after`.' })
  list(@TenantId() tenantId: string, @Query() query: ListUsersQuery): Promise<UserListResponse> {
    return this.users.list(tenantId, query);
  }

  @Get(':userId/memories')
  @ApiOperation({ summary: "A user's memories, each with its version history." })
  @ApiIdParam('userId')
  @ApiQuery({ name: 'status', required: false, enum: ['active', 'all'] })
  @ApiOkResponse({ type: UserMemoriesResponse })
  @ApiErrors({ 400: 'A malformed `userId`, or `status` is not active or all.' })
  memories(
    @TenantId() tenantId: string,
    @PathId('userId') userId: string,
    @Query('status') status?: string,
  ): Promise<UserMemoriesResponse> {
    return this.users.memories(tenantId, userId, status);
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
  turns(@TenantId() tenantId: string, @PathId('userId') userId: string, @Query() query: TurnsByIdQuery): Promise<TurnListResponse> {
    return this.users.turns(tenantId, userId, query.ids);
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
  forget(@TenantId() tenantId: string, @PathId('userId') userId: string): Promise<ForgetUserResponse> {
    return this.forgetting.forget(tenantId, userId);
  }
}
