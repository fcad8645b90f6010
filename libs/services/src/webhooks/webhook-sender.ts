import { WEBHOOK_HEADERS, type WebhookEventName } from '@engram/contracts';
import { signWebhook } from '@engram/domain';

export interface WebhookRequest {
  readonly url: string;
  readonly secret: string;
  readonly body: string;
  readonly eventId: string;
  readonly eventType: WebhookEventName;
  readonly webhookId: string;
  readonly timeoutMs: number;
  /** Aborted when the process stops: the attempt counts as failed and is made again later. */
  readonly signal?: AbortSignal;
}

export interface WebhookOutcome {
  /** A 2xx answer. */
  readonly delivered: boolean;
  readonly responseStatus?: number;
  readonly error?: string;
}

/**
 * One delivery attempt: a signed POST. Redirects are not followed (a receiver that moved says so
 * with a failure, and a redirect cannot lead a delivery to a host the URL check never saw); the
 * answer's body is not read.
 */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      redirect: 'manual',
      signal: request.signal ? AbortSignal.any([timeout, request.signal]) : timeout,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'engram-webhooks/1',
        [WEBHOOK_HEADERS.signature]: signWebhook(request.secret, request.body, timestamp),
        [WEBHOOK_HEADERS.eventId]: request.eventId,
        [WEBHOOK_HEADERS.eventType]: request.eventType,
        [WEBHOOK_HEADERS.webhookId]: request.webhookId,
      },
      body: request.body,
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { delivered: true, responseStatus: response.status };
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : '';
    return { delivered: false, responseStatus: response.status, error: `HTTP ${response.status}${redirect}` };
  } catch (error) {
    if (timeout.aborted) return { delivered: false, error: `no answer within ${request.timeoutMs} ms` };
    if (request.signal?.aborted) return { delivered: false, error: 'interrupted: engram was stopping' };
    return { delivered: false, error: describeFailure(error) };
  }
}

/** fetch's "fetch failed", with the reason beneath it (ECONNREFUSED, ENOTFOUND, a TLS error). */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return (code && !message.includes(code) ? `${message} (${code})` : message).slice(0, 500);
}
