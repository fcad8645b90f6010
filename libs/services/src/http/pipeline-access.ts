import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AuthOptions } from '@engram/config';
import { Public } from './tenancy';

type Scope = 'tenant' | 'deployment';
type ScopedRequest = Request & { pipelineScope?: Scope; tenantId?: string };

/**
 * GET /v1/pipeline/status answers a tenant key and the admin key: the deployment's figures for the
 * admin key (and when no API keys are configured: one local tenant), the tenant's share otherwise.
 */
@Injectable()
class PipelineAccessGuard implements CanActivate {
  private readonly tenantKeys: ReadonlyMap<string, string>;
  private readonly adminKey: Buffer | undefined;

  constructor(@Inject(AuthOptions) auth: AuthOptions) {
    this.tenantKeys = auth.apiKeys;
    this.adminKey = auth.adminKey ? Buffer.from(auth.adminKey) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    if (this.tenantKeys.size === 0) {
      request.pipelineScope = 'deployment';
      return true;
    }
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const given = match ? Buffer.from(match[1]) : undefined;
    if (given && this.adminKey && same(given, this.adminKey)) {
      request.pipelineScope = 'deployment';
      return true;
    }
    const tenant = given && [...this.tenantKeys].find(([key]) => same(given, Buffer.from(key)))?.[1];
    if (!tenant)
      throw new UnauthorizedException("a valid API key (a tenant's or ENGRAM_ADMIN_KEY) is required: Authorization: Bearer <key>");
    request.tenantId = tenant;
    request.pipelineScope = 'tenant';
    return true;
  }
}

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Instead of the tenant guard: a tenant key or the admin key. */
export const PipelineAccess = () => applyDecorators(Public(), UseGuards(PipelineAccessGuard));

/** Which figures the caller may see. */
export const PipelineCaller = createParamDecorator((_: unknown, context: ExecutionContext): Scope => {
  const scope = context.switchToHttp().getRequest<ScopedRequest>().pipelineScope;
  if (!scope) throw new UnauthorizedException('no caller');
  return scope;
});
