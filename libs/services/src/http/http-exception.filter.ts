import { ArgumentsHost, BadRequestException, Catch, ExceptionFilter, HttpException, Logger, ValidationError } from '@nestjs/common';
import type { Response } from 'express';
import { type DependencyName, type DependencyUnavailableError, unavailableDependency } from '@engram/ports';

/** How a 503 names a dependency: what an operator looks for, not its address. */
const DEPENDENCY_WORDS: Record<DependencyName, string> = {
  embedder: 'the embedder (ENGRAM_EMBEDDINGS_URL)',
  llm: 'the chat model (ENGRAM_LLM_URL)',
  mongodb: 'the MongoDB-protocol server (MONGODB_URI)',
  elasticsearch: 'Elasticsearch (ELASTICSEARCH_URL)',
  kafka: 'Kafka (KAFKA_BROKERS)',
};

/**
 * One error shape for every 4xx/5xx: `{ statusCode, error, message[], fields[] }`.
 * Body-parser failures become 400/413 instead of 500; an unavailable dependency
 * becomes 503 naming it, with `Retry-After`; anything unexpected is logged and
 * answered with a generic 500 that leaks nothing.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly log = new Logger('HttpExceptionFilter');

  /** `dependencyRetryAfterSeconds`: the Retry-After of a 503 for an unavailable dependency (ENGRAM_DEPENDENCY_RECHECK_MS). */
  constructor(private readonly options: { readonly dependencyRetryAfterSeconds: number }) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const response = host.switchToHttp().getResponse<Response>();
    const outage = unavailableDependency(exception);
    const { status, body } = outage ? this.unavailable(outage) : this.describe(exception);
    if (outage) this.log.warn({ dependency: outage.dependency, error: outage.message }, 'answered 503: a dependency is unavailable');
    else if (status >= 500) this.log.error({ err: exception }, 'unhandled error');
    const retryAfter = outage ? this.retryAfterSeconds(outage) : (exception as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === 'number' && !response.headersSent) response.setHeader('Retry-After', String(retryAfter));
    if (!response.headersSent) response.status(status).json(body);
  }

  /** 503 naming the dependency (not its address, which the error's message may hold). */
  private unavailable(outage: DependencyUnavailableError): { status: number; body: object } {
    return error(503, 'Service Unavailable', [`${DEPENDENCY_WORDS[outage.dependency]} is unavailable; retry later`], []);
  }

  /** ENGRAM_DEPENDENCY_RECHECK_MS, or the dependency's own Retry-After when it gave a longer one. */
  private retryAfterSeconds(outage: DependencyUnavailableError): number {
    return Math.max(this.options.dependencyRetryAfterSeconds, Math.ceil((outage.retryAfterMs ?? 0) / 1000));
  }

  private describe(exception: unknown): { status: number; body: object } {
    const bodyParser = exception as { type?: string; status?: number; limit?: number };
    if (bodyParser?.type === 'entity.too.large') {
      return error(413, 'Payload Too Large', [`request body exceeds the limit of ${bodyParser.limit} bytes`], ['body']);
    }
    if (bodyParser?.type === 'body.invalid.utf8' || bodyParser?.type === 'body.too.deep') {
      return error(400, 'Bad Request', [(exception as Error).message], ['body']);
    }
    if (
      bodyParser?.type === 'entity.parse.failed' ||
      bodyParser?.type === 'encoding.unsupported' ||
      bodyParser?.type === 'charset.unsupported'
    ) {
      return error(400, 'Bad Request', ['request body must be valid JSON'], ['body']);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const raw = exception.getResponse();
      const payload = typeof raw === 'string' ? { message: raw } : (raw as { message?: unknown; fields?: unknown; error?: string });
      const messages = Array.isArray(payload.message) ? payload.message.map(String) : [String(payload.message ?? exception.message)];
      const fields = Array.isArray(payload.fields) ? payload.fields.map(String) : [];
      return error(status, payload.error ?? exception.name, messages, fields);
    }
    return error(500, 'Internal Server Error', ['internal error'], []);
  }
}

function error(statusCode: number, errorName: string, message: string[], fields: string[]) {
  return { status: statusCode, body: { statusCode, error: errorName, message, fields } };
}

/** ValidationPipe errors → 400 naming every offending field by its path (`turns.0.text`). */
export function validationExceptionFactory(errors: ValidationError[]): BadRequestException {
  const messages: string[] = [];
  const fields: string[] = [];
  const walk = (list: ValidationError[], prefix: string) => {
    for (const e of list) {
      const path = prefix ? `${prefix}.${e.property}` : e.property;
      const constraints = Object.values(e.constraints ?? {});
      if (constraints.length > 0) {
        fields.push(path);
        // class-validator names only the leaf property; say the whole path.
        messages.push(
          ...constraints.map((c) => (c.startsWith(`${e.property} `) ? `${path}${c.slice(e.property.length)}` : `${path}: ${c}`)),
        );
      }
      walk(e.children ?? [], path);
    }
  };
  walk(errors, '');
  return new BadRequestException({ error: 'Bad Request', message: messages, fields });
}
