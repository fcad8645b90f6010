import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RecallDto, RecallResponse } from './recall.dto';
import { TimedRecallService } from './timed-recall.service';
import { TenantId } from '../http/tenancy';
import { ApiErrors, JsonBody, TenantRoute } from '../http/api-contract';

@ApiTags('recall')
@TenantRoute()
@Controller('v1/recall')
export class RecallController {
  constructor(private readonly recalls: TimedRecallService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'The memories that matter for a prompt, and a context block ready to inject.' })
  @ApiOkResponse({ type: RecallResponse })
  @JsonBody(
    'A field is missing or invalid (named in `fields`), `to` is not after `from`, or `after` is not a position POST /v1/turns returned.',
  )
  @ApiErrors({
    503: 'Recall cannot answer without a dependency that is unavailable (the embedder, with ENGRAM_RECALL_LEGS=knn); the message names it, `Retry-After` says when to ask again. With both legs recall answers from BM25 instead, naming the embedder in `degraded`.',
  })
  recall(@TenantId() tenantId: string, @Body() body: RecallDto): Promise<RecallResponse> {
    return this.recalls.recall(tenantId, body);
  }
}
