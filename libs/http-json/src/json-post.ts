/**
 * The HTTP side of engram's OpenAI-compatible clients (embeddings, chat completions): one JSON
 * POST with a timeout, and a retry loop with exponential backoff that honours Retry-After.
 * Each client keeps its own error class; these helpers create and recognise it. A call that
 * failed only because the server was unreachable or said "later" ends as a
 * `DependencyUnavailableError` naming the dependency, so the caller pauses rather than blaming
 * its input.
 */
import { type DependencyName, DependencyUnavailableError } from '@engram/ports';

/** An error class whose instances say whether the same call may succeed later. */
export type CallErrorClass<E extends Error & { readonly retryable: boolean }> = new (message: string, retryable?: boolean) => E;

export interface JsonPost<E extends Error & { readonly retryable: boolean }> {
  readonly endpoint: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  /** False: `Connection: close`, a fresh connection per call. Default true. */
  readonly keepAlive?: boolean;
  readonly errorClass: CallErrorClass<E>;
  /** How the error message names the body when it is not JSON ("answer", "response"). */
  readonly bodyName: string;
}

/** Longest wait a server's Retry-After may impose. */
const RETRY_AFTER_CAP_MS = 30_000;

/**
 * One POST of a JSON body; resolves with the parsed JSON answer. Network errors, timeouts and
 * 408/429/5xx throw retryable errors (with `retryAfterMs` when the server said so); other
 * statuses and a body that is not JSON throw final ones.
 */
export async function postJson<E extends Error & { readonly retryable: boolean }>(call: JsonPost<E>, body: string): Promise<unknown> {
  const { endpoint, errorClass: CallError } = call;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), call.timeoutMs);
  let status: number;
  let text: string;
  let retryAfter: string | null;
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {}),
        ...(call.keepAlive === false ? { connection: 'close' } : {}),
      },
      body,
      signal: controller.signal,
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    text = await response.text();
  } catch (error) {
    if (controller.signal.aborted) throw new CallError(`POST ${endpoint}: no answer within ${call.timeoutMs} ms`, true);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CallError(`POST ${endpoint}: ${cause?.code ?? cause?.message ?? String(error)}`, true);
  } finally {
    clearTimeout(timer);
  }
  if (status < 200 || status >= 300) {
    const failure = new CallError(`POST ${endpoint} → ${status}: ${excerpt(text)}`, status === 408 || status === 429 || status >= 500);
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) Object.assign(failure, { retryAfterMs: seconds * 1000 });
    throw failure;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CallError(`POST ${endpoint}: the ${call.bodyName} is not JSON: ${excerpt(text)}`);
  }
}

/**
 * Runs `attempt` until it succeeds, fails for good (an error of `errorClass` that is not
 * retryable) or has been retried `retries` times; waits `backoffMs · 2^n` with jitter, or the
 * server's Retry-After when longer. The final error says how many attempts were made: the
 * client's error when the call itself was refused (a 4xx, an answer it cannot use), a
 * `DependencyUnavailableError` for `dependency` when every attempt met an unreachable server, a
 * timeout or a 408/429/5xx.
 */
export async function withRetries<T, E extends Error & { readonly retryable: boolean }>(
  attempt: () => Promise<T>,
  policy: {
    readonly retries: number;
    readonly backoffMs: number;
    readonly errorClass: CallErrorClass<E>;
    readonly dependency: DependencyName;
  },
): Promise<T> {
  const { errorClass: CallError } = policy;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      // Anything but a retryable answer of the client's own (a bug, a 4xx, an answer it cannot use) is final as it is.
      if (!(error instanceof CallError) || !error.retryable) throw error;
      const retryAfter = (error as { retryAfterMs?: number }).retryAfterMs;
      if (n >= policy.retries) {
        const tries = `${n + 1} attempt${n === 0 ? '' : 's'}`;
        throw new DependencyUnavailableError(policy.dependency, `${error.message} (gave up after ${tries})`, {
          cause: error,
          retryAfterMs: retryAfter,
        });
      }
      const backoff = policy.backoffMs * 2 ** n * (0.5 + Math.random() / 2);
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(RETRY_AFTER_CAP_MS, Math.max(backoff, retryAfter ?? 0))));
    }
  }
}

/** A body, shortened to one line of at most 300 characters, for error messages. */
export function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine || '(empty body)';
}
