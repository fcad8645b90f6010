import { BadRequestException, Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiIdParam, JsonBody, LogWrite, TenantRoute } from './api-contract';
import { ArrayMaxSize, IsArray, Matches } from 'class-validator';
import { ForgettingService } from '../pipeline/forgetting.job';
import { ExportBundleDto, ImportResponse } from './export.dto';
import { ExportService } from './export.service';
import { TenantId } from './tenancy';
import { Absent, ID_MAX_LENGTH, ID_MESSAGE, ID_PATTERN, ID_PATTERN_SOURCE } from './turns.dto';

function checkUserId(userId: string): string {
  if (!ID_PATTERN.test(userId)) throw new BadRequestException({ message: [`userId ${ID_MESSAGE}`], fields: ['userId'] });
  return userId;
}

@ApiTags('users')
@TenantRoute()
@Controller('v1/users')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Get(':userId/export')
  @ApiOperation({
    summary: "A versioned JSON bundle of the user's memories (every status, with history) and pinned facts.",
    description: 'Tenant-agnostic and masked: no tenant, no raw PII. Import it into any engram with POST /v1/users/:userId/import.',
  })
  @ApiIdParam('userId')
  @ApiOkResponse({ type: ExportBundleDto })
  @ApiErrors({ 400: 'A malformed `userId`.' })
  export(@TenantId() tenantId: string, @Param('userId') userId: string): Promise<ExportBundleDto> {
    return this.exports.export(tenantId, checkUserId(userId));
  }

  @Post(':userId/import')
  @LogWrite()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import an export bundle for this user (idempotent: importing it again adds nothing).',
    description:
      'Memories travel through the resolver as decisions, so rebuilds keep them. A merge key the user already holds is kept, not overwritten.',
  })
  @ApiIdParam('userId')
  @ApiBody({ type: ExportBundleDto })
  @ApiOkResponse({ type: ImportResponse })
  @JsonBody('Not an export bundle: a field missing or invalid (named in `fields`), or a malformed id; nothing was imported.')
  import(@TenantId() tenantId: string, @Param('userId') userId: string, @Body() bundle: ExportBundleDto): Promise<ImportResponse> {
    return this.exports.import(tenantId, checkUserId(userId), bundle);
  }
}

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

@ApiTags('admin')
@TenantRoute()
@Controller('v1/admin/forgetting')
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
