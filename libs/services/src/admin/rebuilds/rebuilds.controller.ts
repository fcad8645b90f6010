import { Body, Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { VERSIONED_PROJECTIONS, type VersionedProjection } from '@engram/ports';
import { OnlineRebuilds } from '../../replay/online-rebuilds';
import type { RebuildStatus } from '../../replay/rebuild-status';
import { ReplayProjections } from '../../replay/replay-projections';
import { ApiErrors, JsonBody } from '../../http/api-contract';
import { AdminGuard, AdminRoute } from '../admin-route';
import { RebuildsService } from './rebuilds.service';

const REBUILD_TARGETS = [...VERSIONED_PROJECTIONS, 'all'] as const;

export class StartRebuildDto {
  @ApiProperty({ enum: REBUILD_TARGETS, example: 'all', description: '`all` starts facts, sessions and search (each its own rebuild).' })
  @IsIn(REBUILD_TARGETS, { message: `projection must be one of ${REBUILD_TARGETS.join(', ')}` })
  projection!: VersionedProjection | 'all';
}

export class RebuildStatusResponse implements RebuildStatus {
  @ApiProperty({ enum: VERSIONED_PROJECTIONS }) projection!: VersionedProjection;
  @ApiProperty({ type: 'integer', description: 'The version being built.' }) version!: number;
  @ApiProperty({ type: 'integer', description: 'The version that served when it started; dropped after the grace period.' })
  previousVersion!: number;
  @ApiProperty({
    enum: ['replaying', 'swapped', 'done', 'failed'],
    description:
      'replaying (old version serves) → swapped (new version serves, overlap applied, old kept for ENGRAM_REBUILD_GRACE_MS) → done',
  })
  phase!: RebuildStatus['phase'];
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages of the input topic applied to the new version.' }) done!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages in the input topic (grows with live traffic).' }) total!: number;
  @ApiProperty({ description: 'Over the last few seconds.' }) eventsPerSecond!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Seconds until the replay reaches the live end; null when unknown.' })
  etaSeconds!: number | null;
  @ApiProperty({ description: 'Runs in the process that answered (else: last persisted numbers).' }) running!: boolean;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) swappedAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) finishedAt?: string;
  @ApiPropertyOptional() error?: string;
}

export class RebuildListResponse {
  @ApiProperty({ type: [RebuildStatusResponse], description: 'Newest first.' }) rebuilds!: RebuildStatusResponse[];
}

@AdminRoute()
@Controller('v1/admin/rebuilds')
export class AdminRebuildsController {
  constructor(private readonly rebuilds: RebuildsService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Start an online rebuild: a new projection version is built from the log while the current one serves, then swapped in.',
    description:
      'Progress: GET /v1/admin/rebuilds. A rebuild survives a restart of the process running it (it resumes from its checkpoint).',
  })
  @ApiAcceptedResponse({ type: RebuildListResponse })
  @JsonBody('`projection` is not one of the projections or `all`.')
  @ApiErrors({ 409: 'A rebuild of that projection is already running.' })
  start(@Body() body: StartRebuildDto): Promise<RebuildListResponse> {
    return this.rebuilds.start(body.projection);
  }

  @Get()
  @ApiOperation({ summary: 'Rebuilds recorded, newest first, with progress (phase, version, done, total, events/s, ETA).' })
  @ApiOkResponse({ type: RebuildListResponse })
  list(): Promise<RebuildListResponse> {
    return this.rebuilds.list();
  }
}

/** The online rebuilds and their admin endpoints; imported by the HTTP apps that serve the read side. */
@Module({
  controllers: [AdminRebuildsController],
  providers: [ReplayProjections, OnlineRebuilds, RebuildsService, AdminGuard],
  exports: [OnlineRebuilds],
})
export class AdminRebuildsModule {}
