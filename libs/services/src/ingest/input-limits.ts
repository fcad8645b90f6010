import { BadRequestException, CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AuthOptions, IngestLimits } from '@engram/config';
import { codePointLength } from '../http/request-fields';

/** Objects and arrays nested deeper than this are refused before parsing (validation recurses per level). */
const MAX_JSON_DEPTH = 32;

/** A body refused before parsing; the exception filter answers it with a 400 naming `body`. */
class BodyRejected extends Error {
  constructor(
    readonly type: 'body.invalid.utf8' | 'body.too.deep',
    message: string,
  ) {
    super(message);
  }
}

/**
 * body-parser's `verify` hook: sees the raw bytes before they are decoded and parsed, so invalid
 * UTF-8 (decoded silently to U+FFFD otherwise) and nesting that would exhaust the validation
 * pipe's stack are refused in one linear pass.
 */
export function verifyJsonBody(_req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new BodyRejected('body.invalid.utf8', 'request body must be valid UTF-8');
  if (jsonDepth(body) > MAX_JSON_DEPTH) {
    throw new BodyRejected('body.too.deep', `request body must not nest objects or arrays more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/** The deepest nesting of `[`/`{` in JSON text, strings skipped. */
function jsonDepth(body: Buffer): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      // A backslash escapes the byte after it.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * POST /v1/turns' counts and sizes, checked before the validation pipe builds and validates every
 * turn: an oversized batch costs one look at its length, not ten thousand validated objects.
 * A guard because guards run before pipes; shapes it does not recognise are left to the pipe.
 */
@Injectable()
export class TurnsLimits implements CanActivate {
  constructor(@Inject(IngestLimits) private readonly limits: IngestLimits) {}

  canActivate(context: ExecutionContext): boolean {
    const body = context.switchToHttp().getRequest<Request>().body as { turns?: unknown } | undefined;
    checkTurnLimits(body?.turns, this.limits);
    return true;
  }
}

/** Throws a 400 naming the field when the batch is too long or a turn's text too long; anything else passes through. */
export function checkTurnLimits(turns: unknown, limits: Pick<IngestLimits, 'maxTurnsPerRequest' | 'maxTextLength'>): void {
  if (!Array.isArray(turns)) return;
  const maxTurns = limits.maxTurnsPerRequest;
  if (turns.length > maxTurns) {
    throw new BadRequestException({ message: [`turns must contain at most ${maxTurns} items`], fields: ['turns'] });
  }
  const maxText = limits.maxTextLength;
  turns.forEach((turn: unknown, i) => {
    const text = (turn as { text?: unknown } | null)?.text;
    // UTF-16 length is an upper bound of the code points: most texts need no count.
    if (typeof text === 'string' && text.length > maxText && codePointLength(text) > maxText) {
      throw new BadRequestException({
        message: [`turns.${i}.text must be at most ${maxText} characters (code points)`],
        fields: [`turns.${i}.text`],
      });
    }
  });
}

/**
 * /metrics and /docs describe every tenant's traffic and the whole API: once ENGRAM_API_KEYS is set
 * they need `Authorization: Bearer <ENGRAM_METRICS_KEY or ENGRAM_ADMIN_KEY>`; tenant keys do not open them.
 * An express middleware, because the docs are served outside Nest's guards.
 */
export function monitoringAuth(auth: AuthOptions): (req: Request, res: Response, next: () => void) => void {
  const open = auth.apiKeys.size === 0;
  const keys = [auth.metricsKey, auth.adminKey].filter(Boolean).map((k) => Buffer.from(k));
  return (req, res, next) => {
    if (open) return next();
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const given = match ? Buffer.from(match[1]) : null;
    if (given && keys.some((key) => key.length === given.length && timingSafeEqual(key, given))) return next();
    res.status(401).json({
      statusCode: 401,
      error: 'Unauthorized',
      message: ['this endpoint needs ENGRAM_METRICS_KEY or ENGRAM_ADMIN_KEY: Authorization: Bearer <key>'],
      fields: ['authorization'],
    });
  };
}

/** The paths monitoringAuth guards (Swagger UI, its JSON and YAML, the Prometheus scrape). */
export const MONITORING_PATHS = ['/metrics', '/docs', '/docs-json', '/docs-yaml'];

interface RouteLayer {
  readonly route?: { readonly path: string; _handlesMethod(method: string): boolean; _methods(): string[] };
  match(path: string): unknown;
}

/**
 * A known path asked with a method it does not serve is a 405 with an Allow header, not a 404
 * (RFC 9110 §15.5.6). Looks the path up in express's own route table at request time, so it knows
 * every route Nest registered; OPTIONS is left to express, which answers it with Allow. Wildcard
 * routes are Nest's middleware (`forRoutes('*')`, mounted for every method), not endpoints.
 */
export function methodNotAllowed(router: {
  readonly stack: readonly RouteLayer[];
}): (req: Request, res: Response, next: () => void) => void {
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const allowed = new Set<string>();
    for (const layer of router.stack) {
      if (!layer.route || layer.route.path.includes('*') || !layer.match(req.path)) continue;
      if (layer.route._handlesMethod(req.method)) return next();
      for (const method of layer.route._methods()) allowed.add(method);
    }
    if (allowed.size === 0) return next();
    const allow = [...allowed].join(', ');
    res.setHeader('Allow', allow);
    res.status(405).json({
      statusCode: 405,
      error: 'Method Not Allowed',
      message: [`${req.method} is not allowed on ${req.path}; allowed: ${allow}`],
      fields: [],
    });
  };
}
