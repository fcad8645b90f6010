export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** First backoff when the server gives no Retry-After; doubled each time, with jitter (default 200 ms). */
  readonly baseDelayMs?: number;
  /** Ceiling of any single wait, Retry-After included (default 30 s). */
  readonly maxDelayMs?: number;
}

const RETRIED = new Set([429, 503]);

/** Retry-After as seconds or an HTTP date → milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A fetch that retries 429 and 503 answers, waiting what Retry-After says or else an exponential
 * backoff. Every endpoint it retries is idempotent (turns carry their turnId), so resending is safe.
 */
export function retryingFetch(inner: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const retries = options.retries ?? 3;
  const base = options.baseDelayMs ?? 200;
  const max = options.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await inner(request.clone());
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const backoff = base * 2 ** attempt * (0.5 + Math.random() / 2);
      const wait = Math.min(max, retryAfterMs(response.headers.get('retry-after')) ?? backoff);
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
}
