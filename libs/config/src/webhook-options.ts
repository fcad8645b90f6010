import type { EngramConfig } from './engram-config';

/** How webhooks are delivered (the retry schedule, timeouts, concurrency) and which URLs may be registered. */
export const WebhookOptions = Symbol('WebhookOptions');
export interface WebhookOptions {
  readonly maxFailures: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly maxPerTenant: number;
  /** Lower case, without a final dot; empty: any host. */
  readonly allowedHosts: readonly string[];
}

export function webhookOptionsFrom(config: EngramConfig): WebhookOptions {
  return {
    maxFailures: config.ENGRAM_WEBHOOK_MAX_FAILURES,
    retryBaseMs: config.ENGRAM_WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: config.ENGRAM_WEBHOOK_RETRY_MAX_MS,
    timeoutMs: config.ENGRAM_WEBHOOK_TIMEOUT_MS,
    concurrency: config.ENGRAM_WEBHOOK_CONCURRENCY,
    maxPerTenant: config.ENGRAM_WEBHOOK_MAX_PER_TENANT,
    allowedHosts: config.ENGRAM_WEBHOOK_ALLOWED_HOSTS.split(',')
      .map((host) => host.trim().toLowerCase().replace(/\.$/, ''))
      .filter(Boolean),
  };
}
