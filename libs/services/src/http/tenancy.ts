import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AuthOptions } from '@engram/config';

export const DEFAULT_TENANT = 'default';
const PUBLIC = 'engram:public';

/** Routes anyone may call (health, docs, metrics). */
export const Public = () => SetMetadata(PUBLIC, true);

type TenantRequest = Request & { tenantId?: string };

/**
 * The tenant comes from the API key (`Authorization: Bearer <key>`), never
 * from the body, so a client cannot name another tenant. With no keys
 * configured every request is tenant `default` and the server listens on
 * loopback only.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  private readonly keys: ReadonlyMap<string, string>;

  constructor(
    private readonly reflector: Reflector,
    @Inject(AuthOptions) auth: AuthOptions,
  ) {
    this.keys = auth.apiKeys;
  }

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<TenantRequest>();
    if (this.keys.size === 0) {
      request.tenantId = DEFAULT_TENANT;
      return true;
    }
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const tenant = match ? this.tenantFor(match[1]) : undefined;
    if (!tenant) throw new UnauthorizedException('a valid API key is required: Authorization: Bearer <key>');
    request.tenantId = tenant;
    return true;
  }

  private tenantFor(key: string): string | undefined {
    const given = Buffer.from(key);
    for (const [candidate, tenant] of this.keys) {
      const expected = Buffer.from(candidate);
      if (expected.length === given.length && timingSafeEqual(expected, given)) return tenant;
    }
    return undefined;
  }
}

/** The authenticated tenant of the request. */
export const TenantId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const tenant = context.switchToHttp().getRequest<TenantRequest>().tenantId;
  if (!tenant) throw new UnauthorizedException('no tenant');
  return tenant;
});
