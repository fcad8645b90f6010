/**
 * The `EngramClient` port over HTTP, against a running engram: one request function for every
 * command. It is not the SDK (`@engram/client`): the SDK retries 429/503, adds `after` to recall
 * for its own writes, fills in turn ids and words its errors for applications, where the CLI sends
 * exactly what the command says and reports a failure as `<METHOD> <path> → <status>: <body>`.
 */
import type { RebuildStatus } from '@engram/services/replay/rebuild-status';
import type { EngramClient, ListedMemory } from './engram-client';

/** Memories per HTTP import request, so a large bundle stays under the server's body limit. */
const IMPORT_CHUNK = 300;

export interface HttpEngramClientOptions {
  readonly url: string;
  /** Bearer key of the tenant routes. */
  readonly apiKey?: string;
  /** Bearer key of `/v1/admin/rebuilds`. */
  readonly adminKey?: string;
  /**
   * Back off and resend on 429, and on 503 (a dependency away for a moment) after its Retry-After:
   * the bench's producers obey backpressure and wait out an outage; commands report both.
   */
  readonly obeyBackpressure?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function httpEngramClient(options: HttpEngramClientOptions): EngramClient {
  const { url, apiKey, adminKey } = options;
  const call = async <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown, key = apiKey): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(new URL(route, url), {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      if (options.obeyBackpressure && (response.status === 429 || response.status === 503) && attempt < 100) {
        const retryAfterMs = Number(response.headers.get('retry-after')) * 1000;
        await sleep(Math.min(5000, retryAfterMs > 0 ? retryAfterMs : 50 * 2 ** Math.min(attempt, 5)));
        continue;
      }
      if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    }
  };
  const user = (userId: string) => `/v1/users/${encodeURIComponent(userId)}`;
  return {
    kind: 'http',
    ingest: (request) => call('POST', '/v1/turns', request),
    pending: async () => (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending,
    pipelineStatus: () => call('GET', '/v1/pipeline/status'),
    recall: (body) => call('POST', '/v1/recall', body),
    memories: async (userId, status) =>
      (await call<{ memories: ListedMemory[] }>('GET', `${user(userId)}/memories${status ? `?status=${status}` : ''}`)).memories,
    export: (userId) => call('GET', `${user(userId)}/export`),
    import: async (userId, bundle) => {
      const total = { memories: 0, added: 0, consistent: true };
      for (let i = 0; i === 0 || i < bundle.memories.length; i += IMPORT_CHUNK) {
        const part = { ...bundle, memories: bundle.memories.slice(i, i + IMPORT_CHUNK) };
        const result = await call<typeof total>('POST', `${user(userId)}/import`, part);
        total.memories += result.memories;
        total.added += result.added;
        total.consistent &&= result.consistent;
      }
      return total;
    },
    runForgetting: (userIds) => call('POST', '/v1/forgetting/run', userIds ? { userIds } : {}),
    retract: (userId, memoryId, reason) => call('DELETE', `${user(userId)}/memories/${encodeURIComponent(memoryId)}`, { reason }),
    revert: (userId, memoryId, version) => call('POST', `${user(userId)}/memories/${encodeURIComponent(memoryId)}/revert`, { version }),
    saveProfile: (userId, attributes) => call('PUT', `${user(userId)}/profile`, { attributes }),
    startRebuilds: async (projection) =>
      (await call<{ rebuilds: RebuildStatus[] }>('POST', '/v1/admin/rebuilds', { projection }, adminKey)).rebuilds,
    rebuilds: async () => (await call<{ rebuilds: RebuildStatus[] }>('GET', '/v1/admin/rebuilds', undefined, adminKey)).rebuilds,
  };
}
