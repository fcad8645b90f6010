/** The longest webhook URL accepted, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

export interface WebhookUrlRules {
  /**
   * The host names a webhook may point at, as a URL's hostname reads (lower case, IPv6 in
   * brackets); empty: any host.
   */
  readonly allowedHosts: readonly string[];
  /** Where this engram server answers: a URL pointing there is refused (deliveries would call engram's own API). */
  readonly self: {
    /** The ports it listens on (the one the request came in on, the configured one). */
    readonly ports: readonly number[];
    /** Names and addresses of this host besides loopback (its interfaces', the request's Host). */
    readonly hosts: readonly string[];
  };
}

export type WebhookUrlCheck = { readonly ok: true; readonly url: string } | { readonly ok: false; readonly problem: string };

/**
 * Whether a URL may receive webhooks: absolute, http or https, no credentials in it, a host the
 * deployment allows, and not this server itself (its port on loopback, on one of its addresses or
 * under the name it was called by). Loopback at another port is allowed: a receiver beside engram.
 * `problem` completes "url …".
 */
export function checkWebhookUrl(text: string, rules: WebhookUrlRules): WebhookUrlCheck {
  // Code points, as JSON Schema's maxLength (and the DTO) count them.
  if ([...text].length > WEBHOOK_URL_MAX_LENGTH) return refused(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refused(`must use http or https, not ${url.protocol.slice(0, -1).slice(0, 32)}`);
  }
  const host = hostOf(url.hostname);
  if (host === '') return refused('must name a host');
  if (url.username !== '' || url.password !== '') return refused('must not carry credentials: deliveries are signed instead');
  const allowed = rules.allowedHosts.map(hostOf);
  if (allowed.length > 0 && !allowed.includes(host)) return refused(`host ${host} is not one this server sends webhooks to`);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const thisHost = isLocalHost(host) || rules.self.hosts.map(hostOf).includes(host);
  if (thisHost && rules.self.ports.includes(port)) return refused('must not point at this engram server itself');
  return { ok: true, url: url.href };
}

function refused(problem: string): WebhookUrlCheck {
  return { ok: false, problem };
}

/** A host name compared as DNS does: case and a final dot do not matter. */
function hostOf(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * Names every machine gives itself: loopback (127.0.0.0/8, ::1, IPv4-mapped loopback),
 * `localhost` and its subdomains, and the unspecified address (0.0.0.0, ::), which reaches the
 * local host. Hosts as WHATWG URL writes them: IPv4 in dotted decimal, IPv6 compressed in brackets.
 */
export function isLocalHost(host: string): boolean {
  const name = hostOf(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(name) || name === '0.0.0.0') return true;
  if (name === '[::1]' || name === '[::]') return true;
  // IPv4-mapped IPv6 (::ffff:7f00:1 is 127.0.0.1; ::ffff:0:0 is 0.0.0.0).
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(name);
  if (mapped) {
    const high = parseInt(mapped[1], 16);
    return high >> 8 === 127 || (high === 0 && parseInt(mapped[2], 16) === 0);
  }
  return false;
}
