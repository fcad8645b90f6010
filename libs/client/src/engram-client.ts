import createClient from 'openapi-fetch';
import { errorFor, type EngramErrorBody } from './errors';
import type { components, paths } from './generated/openapi';
import { retryingFetch, retryAfterMs, type RetryOptions } from './retrying-fetch';

type Schemas = components['schemas'];
export type Turn = Schemas['TurnDto'];
type RecallRequest = Schemas['RecallDto'];
export type RecallResponse = Schemas['RecallResponse'];
export type RecordedTurns = Schemas['PostTurnsResponse'];
export type MemoryRecord = Schemas['MemoryRecordView'];
export type MemoryCommandResponse = Schemas['MemoryCommandResponse'];
export type ProfileUpdateResponse = Schemas['ProfileUpdateResponse'];
export type ExportBundle = Schemas['ExportBundleDto'];
export type ImportResponse = Schemas['ImportResponse'];
export type PipelineStatus = Schemas['PipelineStatusResponse'];

/** A turn to remember: `turnId` defaults to a fresh UUID (kept across retries), `occurredAt` to now. */
export type TurnInput = Omit<Turn, 'turnId' | 'occurredAt'> & { turnId?: string; occurredAt?: string };
/** Everything recall takes besides the user and the query. */
export type RecallOptions = Omit<RecallRequest, 'userId' | 'query'>;

export interface EngramClientOptions extends RetryOptions {
  /** Base URL of the engram server, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <key>` (needed when the server has ENGRAM_API_KEYS). */
  readonly apiKey?: string;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * The engram HTTP API, typed from docs/openapi.json. A `remember` returns a consistency token that
 * the next `recall` of the same user sends as `after`, so an application reads its own writes.
 */
export class EngramClient {
  private readonly api: ReturnType<typeof createClient<paths>>;
  /** userId → the latest position written for that user and not yet seen by a consistent recall. */
  private readonly pending = new Map<string, string>();

  constructor(options: EngramClientOptions) {
    this.api = createClient<paths>({
      baseUrl: options.url.replace(/\/+$/, ''),
      fetch: retryingFetch(options.fetch ?? globalThis.fetch, options),
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
  }

  /** Records turns (idempotent per turnId within the user); 202 once they are on the log. */
  async remember(userId: string, sessionId: string, turns: readonly TurnInput[]): Promise<RecordedTurns> {
    const now = new Date().toISOString();
    const body = {
      userId,
      sessionId,
      turns: turns.map((t) => ({ ...t, turnId: t.turnId ?? globalThis.crypto.randomUUID(), occurredAt: t.occurredAt ?? now })),
    };
    const recorded = await this.call(this.api.POST('/v1/turns', { body }));
    this.pending.set(userId, recorded.position);
    return recorded;
  }

  /** The memories that matter for `query`, and a context block; waits for this client's own writes unless `after` is given. */
  async recall(userId: string, query: string, options: RecallOptions = {}): Promise<RecallResponse> {
    const written = this.pending.get(userId);
    const after = options.after ?? written;
    const recalled = await this.call(this.api.POST('/v1/recall', { body: { ...options, userId, query, ...(after ? { after } : {}) } }));
    if (recalled.consistent && written && this.pending.get(userId) === written) this.pending.delete(userId);
    return recalled;
  }

  /** The user's memories with their version history; `status: 'all'` includes retracted and archived ones. */
  async memories(userId: string, options: { status?: 'active' | 'all' } = {}): Promise<MemoryRecord[]> {
    const listed = await this.call(this.api.GET('/v1/users/{userId}/memories', { params: { path: { userId }, query: options } }));
    return (listed as unknown as { memories: MemoryRecord[] }).memories;
  }

  /** Forgets the user in every store and projection (stays forgotten after rebuilds). */
  async forget(userId: string): Promise<{ forgotten: boolean; position?: string }> {
    const forgotten = (await this.call(this.api.DELETE('/v1/users/{userId}', { params: { path: { userId } } }))) as unknown as {
      forgotten: boolean;
      position?: string;
    };
    if (forgotten.position) this.pending.set(userId, forgotten.position);
    return forgotten;
  }

  /** Retracts one memory, with the reason kept as its `statusReason`. */
  retract(userId: string, memoryId: string, reason: string): Promise<MemoryCommandResponse> {
    return this.call(
      this.api.DELETE('/v1/users/{userId}/memories/{memoryId}', { params: { path: { userId, memoryId } }, body: { reason } }),
    );
  }

  /** Confirms a memory whose value contradicts an earlier one (its `conflict`): the note goes. */
  confirm(userId: string, memoryId: string): Promise<MemoryCommandResponse> {
    return this.call(this.api.POST('/v1/users/{userId}/memories/{memoryId}/confirm', { params: { path: { userId, memoryId } } }));
  }

  /** Brings back one memory's earlier version as a new version. */
  revert(userId: string, memoryId: string, version: number): Promise<MemoryCommandResponse> {
    return this.call(
      this.api.POST('/v1/users/{userId}/memories/{memoryId}/revert', { params: { path: { userId, memoryId } }, body: { version } }),
    );
  }

  /** Pins attributes the application knows for certain (`{ city: '杭州' }`). */
  profile(userId: string, attributes: Record<string, string>): Promise<ProfileUpdateResponse> {
    return this.call(this.api.PUT('/v1/users/{userId}/profile', { params: { path: { userId } }, body: { attributes } }));
  }

  /** A versioned bundle of the user's memories with their history. */
  async export(userId: string): Promise<ExportBundle> {
    return (await this.call(this.api.GET('/v1/users/{userId}/export', { params: { path: { userId } } }))) as unknown as ExportBundle;
  }

  /** Imports an export bundle for this user (idempotent). */
  import(userId: string, bundle: ExportBundle): Promise<ImportResponse> {
    return this.call(this.api.POST('/v1/users/{userId}/import', { params: { path: { userId } }, body: bundle }));
  }

  pipelineStatus(): Promise<PipelineStatus> {
    return this.call(this.api.GET('/v1/pipeline/status'));
  }

  private async call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await request;
    if (response.ok) return data as T;
    const wait = retryAfterMs(response.headers.get('retry-after'));
    throw errorFor(response.status, error as EngramErrorBody | undefined, wait === undefined ? undefined : wait / 1000);
  }
}
