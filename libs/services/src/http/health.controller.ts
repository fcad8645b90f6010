import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { PortBindings } from '@engram/config';
import { DEPENDENCY_NAMES, type DependencyName } from '@engram/ports';
import { ReadinessService } from './readiness.service';
import { Public } from './tenancy';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status!: string;
  @ApiProperty({ example: 'embedded' }) mode!: string;
}

class PausedStageView {
  @ApiProperty({ description: 'The stage (consumer group).' }) stage!: string;
  @ApiProperty({ enum: DEPENDENCY_NAMES }) dependency!: DependencyName;
  @ApiProperty({ format: 'date-time' }) since!: string;
}

class ReadyResponse {
  @ApiProperty({
    enum: ['ready', 'degraded', 'unavailable'],
    description:
      '`ready`: everything answers. `degraded` (still 200): a dependency is down; the stages that need it pause and catch up by themselves, recall answers without it or 503. `unavailable` (503): the event log cannot be read (within ENGRAM_STATUS_TIMEOUT_MS: Kafka is named in `down`).',
  })
  status!: 'ready' | 'degraded' | 'unavailable';
  @ApiProperty({ example: 'embedded' }) mode!: string;
  @ApiProperty({ enum: DEPENDENCY_NAMES, isArray: true, description: 'The dependencies this process finds unavailable.' })
  down!: DependencyName[];
  @ApiProperty({ type: [PausedStageView], description: "This process's stages waiting for a dependency." })
  paused!: PausedStageView[];
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Events accepted but not yet visible to recall (all tenants).' })
  pending?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Dead letters no `engram dlq replay` has re-driven yet.' })
  deadLetters?: number;
  @ApiPropertyOptional({ description: 'Unavailable: why.' }) error?: string;
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(PortBindings) private readonly bindings: PortBindings,
    private readonly readiness: ReadinessService,
  ) {}

  @Public()
  @Get('health')
  @ApiOkResponse({ type: HealthResponse })
  health(): HealthResponse {
    return { status: 'ok', mode: this.bindings.mode };
  }

  /** What is down and what is pending: 200 `ready` or `degraded`, 503 `unavailable` (ReadinessService). */
  @Public()
  @Get('health/ready')
  @ApiOkResponse({ type: ReadyResponse, description: '`ready`, or `degraded`: serving without a dependency that is down.' })
  @ApiResponse({ status: 503, type: ReadyResponse, description: '`unavailable`: the event log cannot be read.' })
  async ready(@Res({ passthrough: true }) response: Response): Promise<ReadyResponse> {
    const { httpStatus, body } = await this.readiness.check();
    response.status(httpStatus);
    return body;
  }
}
