import { Body, Controller, Delete, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { PROFILE_TEXT_MAX } from '@engram/contracts';
import { ApiErrors, ApiIdParam, JsonBody, LogWrite, PathId, TenantRoute } from '../http/api-contract';
import { MemoryCommandResponse, ProfileUpdateDto, ProfileUpdateResponse, RetractMemoryDto, RevertMemoryDto } from './memory-control.dto';
import { MemoryControlService } from './memory-control.service';
import { TenantId } from '../http/tenancy';
import { VISIBLE_PATTERN_SOURCE } from '../http/request-fields';

/** Per-memory control by the application: commands through the resolver (docs/memory-model.md §12). */
@ApiTags('users')
@TenantRoute()
@Controller('v1/users')
export class MemoryControlController {
  constructor(private readonly control: MemoryControlService) {}

  @Delete(':userId/memories/:memoryId')
  @LogWrite()
  @ApiOperation({
    summary: 'Retract one memory, with a reason; answers once recall no longer returns it.',
    description:
      'A MemoryRetracted decision (status `retracted`, `statusReason`), kept and listed with ?status=all; the episodes of the turns that only said it are retracted with it. Revert to its current version to restore it.',
  })
  @ApiIdParam('userId')
  @ApiIdParam('memoryId')
  @ApiQuery({
    name: 'reason',
    required: false,
    description: 'Why (or `reason` in the body; one of the two is required).',
    schema: { type: 'string', minLength: 1, maxLength: PROFILE_TEXT_MAX, pattern: VISIBLE_PATTERN_SOURCE },
  })
  @ApiBody({ type: RetractMemoryDto, required: false })
  @ApiOkResponse({ type: MemoryCommandResponse })
  @JsonBody(
    'No reason (neither in the body nor the query), a reason that is not text (lone surrogates, only invisible characters, too long), or a malformed id.',
  )
  @ApiErrors({ 404: 'The user holds no such memory.', 409: 'The memory is an insight (derived from others).' })
  retract(
    @TenantId() tenantId: string,
    @PathId('userId') userId: string,
    @PathId('memoryId') memoryId: string,
    @Body() body: RetractMemoryDto,
    @Query('reason') reason?: unknown,
  ): Promise<MemoryCommandResponse> {
    return this.control.retract(tenantId, userId, memoryId, body?.reason, reason);
  }

  @Post(':userId/memories/:memoryId/revert')
  @LogWrite()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Restore an earlier value of one memory as a new version; answers once recall sees it.',
    description:
      "The current value moves to the history (so a revert can be reverted); `version` is one listed in the memory's history, or its current version when it is retracted (restores it).",
  })
  @ApiIdParam('userId')
  @ApiIdParam('memoryId')
  @ApiOkResponse({ type: MemoryCommandResponse })
  @JsonBody('`version` is not a positive integer, or is already the current value; or a malformed id.')
  @ApiErrors({
    404: 'The user holds no such memory (`memoryId`), or it has no such version (`version`).',
    409: 'The memory is an insight (derived from others).',
  })
  revert(
    @TenantId() tenantId: string,
    @PathId('userId') userId: string,
    @PathId('memoryId') memoryId: string,
    @Body() body: RevertMemoryDto,
  ): Promise<MemoryCommandResponse> {
    return this.control.revert(tenantId, userId, memoryId, body.version);
  }

  @Post(':userId/memories/:memoryId/confirm')
  @LogWrite()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Confirm a memory whose value contradicts an earlier one; answers once recall sees it.',
    description:
      'A memory carries `conflict` when its current value cannot hold beside an earlier one ("我对青霉素过敏", later "我可以用青霉素"): the newer is current, marked in the context block, until the user confirms it — by saying it again, or through this route. A MemoryReinforced decision without the note (a denied constraint is no longer pinned); `changed: false` when there was nothing to confirm. To keep the earlier value instead, revert to its version.',
  })
  @ApiIdParam('userId')
  @ApiIdParam('memoryId')
  @ApiOkResponse({ type: MemoryCommandResponse })
  @ApiErrors({ 400: 'A malformed id.', 404: 'The user holds no such memory.', 409: 'The memory is an insight (derived from others).' })
  confirm(
    @TenantId() tenantId: string,
    @PathId('userId') userId: string,
    @PathId('memoryId') memoryId: string,
  ): Promise<MemoryCommandResponse> {
    return this.control.confirm(tenantId, userId, memoryId);
  }

  @Put(':userId/profile')
  @LogWrite()
  @ApiOperation({
    summary: "Profile facts the application knows for certain (the seeds' save_profile); answers once recall sees them.",
    description:
      'Each attribute is a profile memory under `user/<attribute>`, the merge key conversation uses: a new value supersedes the old one (kept in history), the same value reinforces it, and what the user says later supersedes it in turn.',
  })
  @ApiIdParam('userId')
  @ApiOkResponse({ type: ProfileUpdateResponse })
  @JsonBody('No attributes, an attribute or value that is not allowed (`attributes.<key>`), or a malformed id.')
  saveProfile(
    @TenantId() tenantId: string,
    @PathId('userId') userId: string,
    @Body() body: ProfileUpdateDto,
  ): Promise<ProfileUpdateResponse> {
    return this.control.saveProfile(tenantId, userId, body.attributes);
  }
}
