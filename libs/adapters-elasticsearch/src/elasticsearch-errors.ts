// Reading an Elasticsearch client error: its HTTP status and its error type.
import { errors } from '@elastic/elasticsearch';

export function statusOf(error: unknown): number | undefined {
  return error instanceof errors.ResponseError ? error.meta.statusCode : undefined;
}

export function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.meta.body as { error?: { type?: string } } | undefined;
  return body?.error?.type;
}
