import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TurnsService } from './turns.service';
import { TenantId } from '../http/tenancy';
import { TurnsLimits } from './input-limits';
import { PostTurnsDto, PostTurnsResponse } from './turns.dto';
import { ApiErrors, JsonBody, LogWrite, TenantRoute } from '../http/api-contract';

@ApiTags('ingest')
@TenantRoute()
@Controller('v1/turns')
export class TurnsController {
  constructor(private readonly turns: TurnsService) {}

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
  post(@TenantId() tenantId: string, @Body() body: PostTurnsDto): Promise<PostTurnsResponse> {
    return this.turns.record(tenantId, body);
  }
}
