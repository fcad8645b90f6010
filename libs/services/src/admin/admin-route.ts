import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AuthOptions } from '@engram/config';
import { ApiErrors } from '../http/api-contract';
import { Public } from '../http/tenancy';

/**
 * Admin endpoints act on the whole deployment, every tenant's data, so a
 * tenant's API key does not open them. With `ENGRAM_ADMIN_KEY` set they need
 * `Authorization: Bearer <ENGRAM_ADMIN_KEY>` (401 without a bearer, 403 with a
 * wrong one). Without it they are open only when no API keys are configured
 * either (the loopback-only development mode) and 403 otherwise.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly adminKey: Buffer | undefined;
  private readonly tenantKeys: boolean;

  constructor(@Inject(AuthOptions) auth: AuthOptions) {
    this.adminKey = auth.adminKey ? Buffer.from(auth.adminKey) : undefined;
    this.tenantKeys = auth.apiKeys.size > 0;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.adminKey) {
      if (this.tenantKeys) throw new ForbiddenException('admin endpoints are disabled: set ENGRAM_ADMIN_KEY');
      return true;
    }
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new UnauthorizedException('the admin key is required: Authorization: Bearer <ENGRAM_ADMIN_KEY>');
    const given = Buffer.from(match[1]);
    if (given.length !== this.adminKey.length || !timingSafeEqual(given, this.adminKey)) throw new ForbiddenException('not the admin key');
    return true;
  }
}

/**
 * Every /v1/admin controller: the admin key instead of a tenant's (AdminGuard, not the tenant
 * guard), and the answers that says, in the OpenAPI document.
 */
export const AdminRoute = (): ClassDecorator =>
  applyDecorators(
    ApiTags('admin'),
    ApiBearerAuth(),
    Public(), // not a tenant's call: AdminGuard decides
    UseGuards(AdminGuard),
    ApiErrors({
      401: 'ENGRAM_ADMIN_KEY is set and no bearer was sent.',
      403: 'Not the admin key (a tenant key is not), or API keys are configured without ENGRAM_ADMIN_KEY.',
    }),
  );
