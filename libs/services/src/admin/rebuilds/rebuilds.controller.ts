import {
  Body,
  CanActivate,
  ConflictException,
  Controller,
  ExecutionContext,
  ForbiddenException,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AuthOptions } from '@engram/config';
import { VERSIONED_PROJECTIONS, type VersionedProjection } from '@engram/ports';
import { OnlineRebuilds } from '../../replay/online-rebuilds';
import { RebuildConflict, type RebuildStatus } from '../../replay/rebuild-status';
import { ReplayProjections } from '../../replay/replay-projections';
import { Public } from '../../http/tenancy';
import { ApiErrors, JsonBody } from '../../http/api-contract';

const REBUILD_TARGETS = [...VERSIONED_PROJECTIONS, 'all'] as const;

/**
 * Admin endpoints act on the whole deployment, every tenant's data, so a
 * tenant's API key does not open them. With `ENGRAM_ADMIN_KEY` set they need
 * `Authorization: Bearer <ENGRAM_ADMIN_KEY>` (401 without a bearer, 403 with a
 * wrong one). Without it they are open only when no API keys are configured
 * either (the loopback-only development mode) and 403 otherwise.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly adminKey: Buffer | undefined;
  private readonly tenantKeys: boolean;

  constructor(@Inject(AuthOptions) auth: AuthOptions) {
    this.adminKey = auth.adminKey ? Buffer.from(auth.adminKey) : undefined;
    this.tenantKeys = auth.apiKeys.size > 0;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.adminKey) {
      if (this.tenantKeys) throw new ForbiddenException('admin endpoints are disabled: set ENGRAM_ADMIN_KEY');
      return true;
    }
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new UnauthorizedException('the admin key is required: Authorization: Bearer <ENGRAM_ADMIN_KEY>');
    const given = Buffer.from(match[1]);
    if (given.length !== this.adminKey.length || !timingSafeEqual(given, this.adminKey)) throw new ForbiddenException('not the admin key');
    return true;
  }
}

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

@ApiTags('admin')
@ApiBearerAuth()
@Public() // not a tenant's call: AdminGuard decides
@UseGuards(AdminGuard)
@ApiErrors({
  401: 'ENGRAM_ADMIN_KEY is set and no bearer was sent.',
  403: 'Not the admin key (a tenant key is not), or API keys are configured without ENGRAM_ADMIN_KEY.',
})
@Controller('v1/admin/rebuilds')
export class AdminRebuildsController {
  constructor(private readonly rebuilds: OnlineRebuilds) {}

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
  async start(@Body() body: StartRebuildDto): Promise<RebuildListResponse> {
    const projections = body.projection === 'all' ? [...VERSIONED_PROJECTIONS] : [body.projection];
    const busy = projections.filter((p) => this.rebuilds.isRunning(p));
    if (busy.length > 0) throw new ConflictException(`a rebuild is already running for: ${busy.join(', ')}`);
    const started: RebuildStatus[] = [];
    for (const projection of projections) {
      try {
        started.push(await this.rebuilds.start(projection));
      } catch (error) {
        if (error instanceof RebuildConflict) throw new ConflictException(error.message);
        throw error;
      }
    }
    return { rebuilds: started };
  }

  @Get()
  @ApiOperation({ summary: 'Rebuilds recorded, newest first, with progress (phase, version, done, total, events/s, ETA).' })
  @ApiOkResponse({ type: RebuildListResponse })
  async list(): Promise<RebuildListResponse> {
    return { rebuilds: await this.rebuilds.status() };
  }
}

/** The online rebuilds and their admin endpoints; imported by the HTTP apps that serve the read side. */
@Module({
  controllers: [AdminRebuildsController],
  providers: [ReplayProjections, OnlineRebuilds, AdminGuard],
  exports: [OnlineRebuilds],
})
export class AdminRebuildsModule {}
