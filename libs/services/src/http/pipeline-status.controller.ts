import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { DEPENDENCY_NAMES, type DependencyName } from '@engram/ports';
import { TenantRoute } from './api-contract';
import { PipelineAccess, PipelineCaller } from './pipeline-access';
import { PipelineStatusService } from './pipeline-status.service';

class StageLagView {
  @ApiProperty() topic!: string;
  @ApiProperty() group!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) lag!: number;
  @ApiPropertyOptional({
    enum: DEPENDENCY_NAMES,
    description: 'Present while the stage waits for this dependency: its batch is retried with backoff, nothing is dead-lettered.',
  })
  pausedOn?: DependencyName;
}

class DependencyStateView {
  @ApiProperty({ enum: DEPENDENCY_NAMES }) name!: DependencyName;
  @ApiProperty({ enum: ['up', 'down'] }) state!: 'up' | 'down';
  @ApiPropertyOptional({ format: 'date-time', description: 'Down: since when.' }) since?: string;
  @ApiPropertyOptional({ description: "Down: the last failure, as the call reported it (it may name the dependency's address)." })
  error?: string;
}

class PipelineStatusResponse {
  @ApiProperty({
    enum: ['tenant', 'deployment'],
    description:
      '`deployment` for the admin key (or when no API keys are configured): every figure; `tenant` for a tenant key: `pending`, `deadLetters` and `down`.',
  })
  scope!: 'tenant' | 'deployment';
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Events accepted but not yet visible to recall, all tenants together (the figure 429s name); 0 = recall sees everything ingested.',
  })
  pending!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Dead letters no `engram dlq replay` has re-driven yet, all topics together: events recall will not see until then (not part of `pending`).',
  })
  deadLetters!: number;
  @ApiProperty({
    enum: DEPENDENCY_NAMES,
    isArray: true,
    description:
      'The dependencies this process finds unavailable (`embedder`, `llm`; in the distributed mode also `mongodb`, `elasticsearch`, `kafka`): while one is, the stages that need it pause and `pending` grows, and recall answers without it (`degraded`) or 503. Empty when all answer. When the event log itself cannot be read (Kafka), this endpoint answers 503 naming it, with Retry-After.',
  })
  down!: DependencyName[];
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Deployment scope only: events ever accepted onto the turns topic.' })
  ingested?: number;
  @ApiPropertyOptional({
    type: [StageLagView],
    description: 'Deployment scope only: the lag of each stage of the read path, and the dependency it is paused on, if any.',
  })
  stages?: StageLagView[];
  @ApiPropertyOptional({
    type: [DependencyStateView],
    description: "Deployment scope only: every dependency this deployment calls (its stores' servers included), up or down.",
  })
  dependencies?: DependencyStateView[];
}

/** What recall has yet to see: a tenant key sees its `pending`, the admin key the deployment's stages (PipelineStatusService). */
@ApiTags('pipeline')
@TenantRoute()
@Controller('v1/pipeline')
export class PipelineController {
  constructor(private readonly pipeline: PipelineStatusService) {}

  @Get('status')
  @PipelineAccess()
  @ApiOkResponse({ type: PipelineStatusResponse })
  status(@PipelineCaller() caller: 'tenant' | 'deployment'): Promise<PipelineStatusResponse> {
    return this.pipeline.status(caller);
  }
}
