export interface WebhookRetryPolicy {
  /** The wait after the first failure; each further failure doubles it. */
  readonly baseMs: number;
  /** The longest wait between two attempts. */
  readonly maxMs: number;
  /** A delivery failing this many times in a row disables its subscription. */
  readonly maxFailures: number;
}

/** How long to wait before attempting again a delivery that has failed `failures` times (≥ 1) in a row. */
export function webhookRetryDelayMs(failures: number, policy: Pick<WebhookRetryPolicy, 'baseMs' | 'maxMs'>): number {
  const doublings = Math.min(Math.max(0, failures - 1), 40);
  return Math.min(Math.max(policy.baseMs, policy.maxMs), policy.baseMs * 2 ** doublings);
}

/** Whether a delivery that has now failed `failures` times in a row gives up on its subscription. */
export function webhookGivesUp(failures: number, policy: Pick<WebhookRetryPolicy, 'maxFailures'>): boolean {
  return failures >= policy.maxFailures;
}
