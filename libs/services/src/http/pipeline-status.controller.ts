import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { TenantRoute } from './api-contract';
import { PipelineAccess, PipelineCaller } from './pipeline-access';
import { PipelineStatusService } from './pipeline-status.service';

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
