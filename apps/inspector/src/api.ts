/** The engram HTTP API as the inspector uses it: the keys the user typed live in sessionStorage only. */
import type {
  DeadLettersResponse,
  MemoryRecord,
  PipelineStatus,
  ProjectionVersions,
  RebuildList,
  RecallRequest,
  RecallResponse,
  RecentTurn,
  UserList,
} from './types.js';

const TENANT_KEY = 'engram.inspector.key';
const ADMIN_KEY = 'engram.inspector.adminKey';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const keys = {
  tenant: () => sessionStorage.getItem(TENANT_KEY),
  admin: () => sessionStorage.getItem(ADMIN_KEY),
  setTenant: (key: string) => sessionStorage.setItem(TENANT_KEY, key),
  setAdmin: (key: string) => sessionStorage.setItem(ADMIN_KEY, key),
  clear: () => {
    sessionStorage.removeItem(TENANT_KEY);
    sessionStorage.removeItem(ADMIN_KEY);
  },
};

async function call<T>(method: 'GET' | 'POST', path: string, key: string | null, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) throw new ApiError(response.status, errorMessage(parsed) ?? `${method} ${path}: ${response.status}`);
  return parsed as T;
}

/** engram's errors carry `message` as a list of sentences naming the field. */
function errorMessage(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | undefined)?.message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : undefined;
}

const user = (userId: string) => `/v1/users/${encodeURIComponent(userId)}`;

export const api = {
  users: (after?: string, limit = 50) =>
    call<UserList>('GET', `/v1/users?${new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) })}`, keys.tenant()),
  memories: (userId: string, status: 'active' | 'all') =>
    call<{ memories: MemoryRecord[] }>('GET', `${user(userId)}/memories?status=${status}`, keys.tenant()),
  turns: (userId: string, turnIds: readonly string[]) =>
    call<{ turns: RecentTurn[] }>('GET', `${user(userId)}/turns?${new URLSearchParams(turnIds.map((id) => ['ids', id]))}`, keys.tenant()),
  recall: (request: RecallRequest) => call<RecallResponse>('POST', '/v1/recall', keys.tenant(), { ...request, debug: true }),
  // The deployment's lag per stage with the admin key; a tenant key gets its pending count only.
  pipeline: () => call<PipelineStatus>('GET', '/v1/pipeline/status', keys.admin() ?? keys.tenant()),
  // Admin endpoints: the admin key when one was given; without keys configured at all they are open.
  projections: () => call<ProjectionVersions>('GET', '/v1/admin/projections', keys.admin() ?? keys.tenant()),
  deadLetters: () => call<DeadLettersResponse>('GET', '/v1/admin/dead-letters', keys.admin() ?? keys.tenant()),
  rebuilds: () => call<RebuildList>('GET', '/v1/admin/rebuilds', keys.admin() ?? keys.tenant()),
};
