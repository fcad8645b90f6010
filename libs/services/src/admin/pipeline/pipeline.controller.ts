import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AdminRoute } from '../admin-route';
import { DeadLettersResponse, ProjectionVersionsResponse } from './pipeline.dto';
import { AdminPipelineService } from './pipeline.service';

/** What the inspector's pipeline view shows beside /v1/pipeline/status: whole-deployment data, so admin only. */
@AdminRoute()
@Controller('v1/admin')
export class AdminPipelineController {
  constructor(private readonly pipeline: AdminPipelineService) {}

  @Get('projections')
  @ApiOperation({ summary: 'Each versioned projection: the version serving and the versions whose data exists.' })
  @ApiOkResponse({ type: ProjectionVersionsResponse })
  projections(): Promise<ProjectionVersionsResponse> {
    return this.pipeline.projections();
  }

  @Get('dead-letters')
  @ApiOperation({
    summary: 'Dead letters per topic: how many, and the newest with stage, reason and error.',
    description: 'Read like `engram dlq list`, with a throwaway consumer group (no stage moves); re-drive them with `engram dlq replay`.',
  })
  @ApiOkResponse({ type: DeadLettersResponse })
  deadLetters(): Promise<DeadLettersResponse> {
    return this.pipeline.deadLetters();
  }
}
