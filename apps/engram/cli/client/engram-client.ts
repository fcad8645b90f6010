/**
 * The one port every CLI command talks to engram through: what the commands need of an engram,
 * whether it runs elsewhere (`httpEngramClient`: a base URL and keys) or in this process
 * (`inProcessEngramClient`: the Nest services of an app started here). `connect.ts` picks one.
 */
import type { MemoryRecord } from '@engram/contracts';
import type { ForgettingRun } from '@engram/services/forgetting/forgetting.job';
import type { PostTurnsDto, PostTurnsResponse } from '@engram/services/ingest/turns.dto';
import type { RebuildStatus } from '@engram/services/replay/rebuild-status';
import type { RecallDto, RecallResponse } from '@engram/services/recall/recall.dto';
import type { ExportBundleDto, ImportResponse } from '@engram/services/users/export.dto';
import type { MemoryCommandResponse, ProfileUpdateResponse } from '@engram/services/users/memory-control.dto';

/** A stored memory as `GET /v1/users/:id/memories` lists it (without the resolver's bookkeeping). */
export type ListedMemory = Omit<MemoryRecord, 'appliedItemIds'>;

export interface EngramClient {
  /**
   * Where the engram runs. Commands differ only in what they print or how they wait: a remote ingest
   * reports the position it reached; an in-process one drains the pipeline with a progress bar.
   */
  readonly kind: 'http' | 'in-process';
  /** POST /v1/turns. */
  ingest(request: PostTurnsDto): Promise<PostTurnsResponse>;
  /** Events accepted but not yet visible to recall. */
  pending(): Promise<number>;
  /** What `engram status` prints: GET /v1/pipeline/status, or `{ pending, deadLetters, stages }` in process. */
  pipelineStatus(): Promise<unknown>;
  recall(body: RecallDto): Promise<RecallResponse>;
  /** A user's memories: active ones, or with `all` every status. */
  memories(userId: string, status?: 'all'): Promise<ListedMemory[]>;
  export(userId: string): Promise<ExportBundleDto>;
  /** Imports a bundle (over HTTP in chunks the server's body limit accepts, the results summed). */
  import(userId: string, bundle: ExportBundleDto): Promise<ImportResponse>;
  /** One forgetting sweep now, waited for: these users, or every user. */
  runForgetting(userIds?: string[]): Promise<ForgettingRun>;
  retract(userId: string, memoryId: string, reason: string): Promise<MemoryCommandResponse>;
  revert(userId: string, memoryId: string, version: number): Promise<MemoryCommandResponse>;
  saveProfile(userId: string, attributes: Record<string, string>): Promise<ProfileUpdateResponse>;
  /** Starts online rebuilds (POST /v1/admin/rebuilds): needs a running server. */
  startRebuilds(projection: string): Promise<RebuildStatus[]>;
  /** GET /v1/admin/rebuilds. */
  rebuilds(): Promise<RebuildStatus[]>;
}
