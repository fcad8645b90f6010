import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EngramConfig } from '@engram/config';
import { MemoryRecord } from '@engram/contracts';
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
@ApiBearerAuth()
@Controller('v1/turns')
export class TurnsController {
  constructor(
    private readonly ingest: IngestService,
    private readonly backpressure: Backpressure,
  ) {}

  @Post()
  @UseGuards(TurnsLimits)
  @HttpCode(202)
  @ApiOperation({ summary: 'Record conversation turns (idempotent per turnId within a user).' })
  @ApiResponse({ status: 202, type: PostTurnsResponse })
  @ApiResponse({ status: 400, description: 'A field is missing or invalid; nothing was stored.' })
  @ApiResponse({ status: 413, description: 'The body is larger than ENGRAM_BODY_LIMIT_BYTES.' })
  @ApiResponse({ status: 429, description: 'The pipeline lags too far behind, or the tenant is over its rate; see Retry-After.' })
  async post(@TenantId() tenantId: string, @Body() body: PostTurnsDto): Promise<PostTurnsResponse> {
    await this.backpressure.admit(tenantId, body.turns.length);
    return this.ingest.ingest(tenantId, body);
  }
}

@ApiTags('recall')
@ApiBearerAuth()
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
  @ApiProperty() lag!: number;
}

class PipelineStatusResponse {
  @ApiProperty({ description: 'Events accepted but not yet visible to recall; 0 = recall sees everything ingested.' })
  pending!: number;
  @ApiProperty({ description: 'Events ever accepted onto the turns topic.' }) ingested!: number;
  @ApiProperty({ type: [StageLagView] }) stages!: StageLagView[];
}

@ApiTags('pipeline')
@ApiBearerAuth()
@Controller('v1/pipeline')
export class PipelineController {
  constructor(private readonly progress: PipelineProgress) {}

  @Get('status')
  @ApiOkResponse({ type: PipelineStatusResponse })
  async status(): Promise<PipelineStatusResponse> {
    const stages = await this.progress.stages();
    return { pending: stages.reduce((sum, s) => sum + s.lag, 0), ingested: await this.progress.ingested(), stages };
  }
}

function checkUserId(userId: string): string {
  if (!ID_PATTERN.test(userId)) throw new BadRequestException({ message: [`userId ${ID_MESSAGE}`], fields: ['userId'] });
  return userId;
}

@ApiTags('users')
@ApiBearerAuth()
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

  @Get(':userId/memories')
  @ApiOperation({ summary: "A user's memories, each with its version history." })
  @ApiQuery({ name: 'status', required: false, enum: ['active', 'all'] })
  async memories(
    @TenantId() tenantId: string,
    @Param('userId') userId: string,
    @Query('status') status?: string,
  ): Promise<{ memories: Omit<MemoryRecord, 'appliedItemIds'>[] }> {
    if (status !== undefined && status !== 'active' && status !== 'all') {
      throw new BadRequestException({ message: ['status must be one of: active, all'], fields: ['status'] });
    }
    const memories = await this.facts.list({
      tenantId,
      userId: checkUserId(userId),
      ...(status === 'all' ? {} : { statuses: ['active'] }),
    });
    // appliedItemIds is the resolver's bookkeeping, not the user's data.
    return { memories: memories.map(({ appliedItemIds: _bookkeeping, ...memory }) => memory) };
  }

  @Delete(':userId')
  @ApiOperation({
    summary: 'Forget a user in every store and projection.',
    description: 'Writes UserForgotten to the log (so rebuilds honour it) and erases the projections at once.',
  })
  async forget(@TenantId() tenantId: string, @Param('userId') userId: string): Promise<{ forgotten: boolean; position: string }> {
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
