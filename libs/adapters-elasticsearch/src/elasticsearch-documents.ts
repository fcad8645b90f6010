// One memory as an Elasticsearch document: its fields, its id, and which terms and vectors can be indexed.
import { createHash } from 'node:crypto';

/** The fields of one indexed document (`_source`). */
export interface IndexedDocument {
  tenantId: string;
  userId: string;
  memoryId: string;
  revision: number;
  kind: string;
  status: string;
  content: string;
  terms: string[];
  entities: string[];
  vector?: number[];
  updatedAt: string;
}

/** Lucene rejects terms above 32766 UTF-8 bytes ("immense term"); such a term cannot be a real word. */
const MAX_TERM_BYTES = 8191;
/** Elasticsearch rejects `_id`s above 512 bytes. */
const MAX_ID_BYTES = 512;

/**
 * `tenant:user:memory` with each part URI-encoded (`:` becomes `%3A`), so ids
 * containing `:` never collide; a SHA-256 above Elasticsearch's 512-byte limit.
 */
export function documentId(tenantId: string, userId: string, memoryId: string): string {
  const id = [tenantId, userId, memoryId].map(encodeURIComponent).join(':');
  if (Buffer.byteLength(id) <= MAX_ID_BYTES) return id;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify([tenantId, userId, memoryId]))
    .digest('hex')}`;
}

/**
 * The shard routing of a user's documents: all of one (tenant, user) on one shard, so a query
 * that carries it is answered by that shard alone, whatever the number of shards and of other users.
 * Bounded (a hash), unambiguous for ids with `:` (a JSON pair).
 */
export function routingOf(tenantId: string, userId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([tenantId, userId]))
    .digest('hex')
    .slice(0, 32);
}

export function isIndexableTerm(term: string): boolean {
  return term.length > 0 && Buffer.byteLength(term) <= MAX_TERM_BYTES;
}

export function isIndexableVector(vector: readonly number[], dimensions: number): boolean {
  if (vector.length !== dimensions) return false;
  let sum = 0;
  for (const x of vector) {
    if (!Number.isFinite(x)) return false;
    sum += x * x;
  }
  return sum > 0;
}
