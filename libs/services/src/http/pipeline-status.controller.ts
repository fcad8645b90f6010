import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import { TenantRoute } from './api-contract';
import { PipelineAccess, PipelineCaller } from './pipeline-access';

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
