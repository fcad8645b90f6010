import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiIdParam, JsonBody, LogWrite, PathId, TenantRoute } from '../http/api-contract';
import { ExportBundleDto, ImportResponse } from './export.dto';
import { ExportService } from './export.service';
import { TenantId } from '../http/tenancy';

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
  export(@TenantId() tenantId: string, @PathId('userId') userId: string): Promise<ExportBundleDto> {
    return this.exports.export(tenantId, userId);
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
  import(@TenantId() tenantId: string, @PathId('userId') userId: string, @Body() bundle: ExportBundleDto): Promise<ImportResponse> {
    return this.exports.import(tenantId, userId, bundle);
  }
}
