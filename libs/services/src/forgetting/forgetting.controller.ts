import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { JsonBody, LogWrite, TenantRoute } from '../http/api-contract';
import { ArrayMaxSize, IsArray, Matches } from 'class-validator';
import { ForgettingService } from './forgetting.job';
import { TenantId } from '../http/tenancy';
import { Absent, ID_MAX_LENGTH, ID_MESSAGE, ID_PATTERN, ID_PATTERN_SOURCE } from '../http/request-fields';

export class RunForgettingDto {
  @ApiPropertyOptional({
    type: [String],
    maxItems: 10_000,
    items: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN_SOURCE },
    description: 'Only these users (default: every user of the tenant).',
  })
  @Absent()
  @IsArray()
  @ArrayMaxSize(10_000)
  @Matches(ID_PATTERN, { each: true, message: `userIds ${ID_MESSAGE}` })
  userIds?: string[];
}

export class ForgettingRunResponse {
  @ApiProperty({ type: 'integer', description: 'Users looked at.' }) users!: number;
  @ApiProperty({ type: 'integer', description: 'Ephemeral memories expired.' }) expired!: number;
  @ApiProperty({ type: 'integer', description: 'Low-confidence, unrecalled memories archived.' }) archived!: number;
  @ApiProperty({ description: 'False when the read side did not catch up in time.' }) consistent!: boolean;
}

/**
 * A tenant's own sweep, on demand: it applies the deployment's policy (which the scheduled sweep
 * applies to every tenant anyway) to the caller's users only, so a tenant key opens it, and it is
 * not under /v1/admin, whose routes act on every tenant and take the admin key.
 */
@ApiTags('forgetting')
@TenantRoute()
@Controller('v1/forgetting')
export class ForgettingController {
  constructor(private readonly forgetting: ForgettingService) {}

  @Post('run')
  @LogWrite()
  @HttpCode(200)
  @ApiOperation({
    summary: "Apply the forgetting policy now to the tenant's users; answers once recall reflects it.",
    description:
      'Expiry (ENGRAM_EPHEMERAL_TTL_DAYS) and archival (ENGRAM_ARCHIVE_CONFIDENCE, ENGRAM_ARCHIVE_AFTER_DAYS) are decided by the resolver and recorded as MemoryExpired / MemoryArchived events.',
  })
  @ApiBody({ type: RunForgettingDto, required: false })
  @ApiOkResponse({ type: ForgettingRunResponse })
  @JsonBody()
  run(@TenantId() tenantId: string, @Body() body: RunForgettingDto): Promise<ForgettingRunResponse> {
    return this.forgetting.run({ tenantId, userIds: body.userIds, wait: true });
  }
}
