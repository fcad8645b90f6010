import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A delivery's signature, Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`.
 * The timestamp is signed with the body, so a receiver that refuses old timestamps refuses a
 * replayed delivery; `v1` names the scheme, so another can be added beside it later.
 */
export function signWebhook(secret: string, body: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${webhookDigest(secret, body, timestampSeconds)}`;
}

export function webhookDigest(secret: string, body: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
}

export interface WebhookVerification {
  readonly nowSeconds: number;
  /** How old (or how far ahead) a timestamp may be; Stripe's libraries default to 300 s. */
  readonly toleranceSeconds?: number;
}

/**
 * What a receiver does with a delivery: true when one `v1` of the header is the body's digest
 * under `secret` (compared in constant time) and its timestamp is within the tolerance.
 */
export function verifyWebhookSignature(header: string, secret: string, body: string, options: WebhookVerification): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamps = parts.filter(([key]) => key === 't').map(([, value]) => value);
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0])) return false;
  const timestamp = Number(timestamps[0]);
  if (Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(webhookDigest(secret, body, timestamp), 'utf8');
  return parts
    .filter(([key, value]) => key === 'v1' && value !== undefined)
    .some(([, value]) => {
      const given = Buffer.from(value, 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
