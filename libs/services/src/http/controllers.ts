import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EngramConfig } from '@engram/config';
import { AccessStore, FactStore, SearchIndex, SessionStore } from '@engram/ports';
import { BadRequestException } from '@nestjs/common';
import { aliasesChanged } from '../pipeline/entity-aliases.provider';
import { decodePosition, PipelineProgress } from '../pipeline/pipeline-progress';
import { EngramMetrics } from '../observability/metrics';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { RecallDto, RecallResponse } from './recall.dto';
import { RecallService } from './recall.service';
import { Public, TenantId } from './tenancy';
import { TurnsLimits } from './input-limits';
import { ID_MESSAGE, ID_PATTERN, PostTurnsDto, PostTurnsResponse } from './turns.dto';
import { ListUsersQuery, TURN_IDS_QUERY_SCHEMA, TURNS_BY_ID_MAX, TurnListResponse, TurnsByIdQuery, UserListResponse } from './users.dto';
import { ApiErrors, ApiIdParam, JsonBody, LogWrite, TenantRoute } from './api-contract';
import { MemoryRecordView } from './memory-control.dto';
import { PipelineAccess, PipelineCaller } from './pipeline-access';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status!: string;
  @ApiProperty({ example: 'embedded' }) mode!: string;
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly config: EngramConfig) {}

  @Public()
  @Get('health')
  @ApiOkResponse({ type: HealthResponse })
  health(): HealthResponse {
    return { status: 'ok', mode: this.config.ENGRAM_MODE };
  }
}

@ApiTags('ingest')
@TenantRoute()
@Controller('v1/turns')
export class TurnsController {
  constructor(
    private readonly ingest: IngestService,
    private readonly backpressure: Backpressure,
  ) {}

  @Post()
  @UseGuards(TurnsLimits)
  @LogWrite()
  @HttpCode(202)
  @ApiOperation({ summary: 'Record conversation turns (idempotent per turnId within a user).' })
  @ApiResponse({ status: 202, type: PostTurnsResponse })
  @JsonBody(
    'A field is missing or invalid (named in `fields`; a text over ENGRAM_MAX_TEXT_LENGTH code points, an `occurredAt` past ENGRAM_MAX_FUTURE_MS too); nothing was stored.',
  )
  @ApiErrors({ 429: 'The pipeline lags too far behind, or the tenant is over its rate; see Retry-After.' })
  async post(@TenantId() tenantId: string, @Body() body: PostTurnsDto): Promise<PostTurnsResponse> {
    await this.backpressure.admit(tenantId, body.turns.length);
    return this.ingest.ingest(tenantId, body);
  }
}

@ApiTags('recall')
@TenantRoute()
@Controller('v1/recall')
export class RecallController {
  constructor(
    private readonly recallService: RecallService,
    private readonly metrics: EngramMetrics,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'The memories that matter for a prompt, and a context block ready to inject.' })
  @ApiOkResponse({ type: RecallResponse })
  @JsonBody(
    'A field is missing or invalid (named in `fields`), `to` is not after `from`, or `after` is not a position POST /v1/turns returned.',
  )
  async recall(@TenantId() tenantId: string, @Body() body: RecallDto): Promise<RecallResponse> {
    const done = this.metrics.recallDuration.startTimer();
    try {
      return await this.recallService.recall(tenantId, body);
    } finally {
      done();
    }
  }
}

class StageLagView {
  @ApiProperty() topic!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) lag!: number;
}

class PipelineStatusResponse {
  @ApiProperty({
    enum: ['tenant', 'deployment'],
    description:
      '`deployment` for the admin key (or when no API keys are configured): every figure; `tenant` for a tenant key: `pending` only.',
  })
  scope!: 'tenant' | 'deployment';
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Events accepted but not yet visible to recall, all tenants together (the figure 429s name); 0 = recall sees everything ingested.',
  })
  pending!: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Deployment scope only: events ever accepted onto the turns topic.' })
  ingested?: number;
  @ApiPropertyOptional({ type: [StageLagView], description: 'Deployment scope only: the lag of each stage of the read path.' })
  stages?: StageLagView[];
}

/**
 * The figures are offsets of the shared log (Kafka's lag, in the distributed mode): they cannot be
 * split by tenant. A tenant sees the backlog it waits behind (the figure backpressure's 429 names
 * anyway); the volume ever ingested and the stages are the deployment's, for the admin key.
 */
@ApiTags('pipeline')
@TenantRoute()
@Controller('v1/pipeline')
export class PipelineController {
  constructor(private readonly progress: PipelineProgress) {}

  @Get('status')
  @PipelineAccess()
  @ApiOkResponse({ type: PipelineStatusResponse })
  async status(@PipelineCaller() caller: 'tenant' | 'deployment'): Promise<PipelineStatusResponse> {
    const stages = await this.progress.stages();
    const pending = stages.reduce((sum, s) => sum + s.lag, 0);
    if (caller === 'tenant') return { scope: 'tenant', pending };
    return { scope: 'deployment', pending, ingested: await this.progress.ingested(), stages };
  }
}

class UserMemoriesResponse {
  @ApiProperty({ type: [MemoryRecordView] }) memories!: MemoryRecordView[];
}

class ForgetUserResponse {
  @ApiProperty({ enum: [true] }) forgotten!: true;
  @ApiProperty({ description: 'The UserForgotten event in the log, as a consistency token.' }) position!: string;
}

function checkUserId(userId: string): string {
  if (!ID_PATTERN.test(userId)) throw new BadRequestException({ message: [`userId ${ID_MESSAGE}`], fields: ['userId'] });
  return userId;
}

@ApiTags('users')
@TenantRoute()
@Controller('v1/users')
export class UsersController {
  constructor(
    private readonly ingest: IngestService,
    private readonly progress: PipelineProgress,
    private readonly config: EngramConfig,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(SearchIndex) private readonly search: SearchIndex,
    @Inject(AccessStore) private readonly access: AccessStore,
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
    const position = await this.ingest.forget(tenantId, userId);
    await this.erase(tenantId, userId);
    // Anything already in flight for this user is erased again when UserForgotten reaches each stage;
    // wait (bounded) for that so the answer is true when it arrives.
    await this.progress.waitFor(decodePosition(position)!, this.config.ENGRAM_AFTER_TIMEOUT_MS);
    await this.ingest.shred(tenantId, userId);
    return { forgotten: true, position };
  }

  private async erase(tenantId: string, userId: string): Promise<void> {
    await Promise.all([
      this.facts.deleteUser(tenantId, userId),
      this.sessions.deleteUser(tenantId, userId),
      this.search.deleteUser(tenantId, userId),
      this.access.deleteUser(tenantId, userId),
    ]);
    aliasesChanged(this.facts, tenantId, userId);
  }
}
