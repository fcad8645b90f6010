import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './sqlite-database';

/** One user's active vectors, decoded once. */
export interface UserVectors {
  readonly memoryIds: readonly string[];
  /** Each document's kind, for recall's kinds filter. */
  readonly kinds: readonly string[];
  readonly vectors: readonly Float32Array[];
  readonly norms: readonly number[];
  readonly bytes: number;
}

/**
 * Decoded vectors per (tenant, user), least recently used evicted first.
 * Reading and decoding the BLOBs costs several times the cosine maths, so a
 * user's vectors are decoded once and reused until that user's documents change.
 * Writes through this connection invalidate the user; writes through another
 * connection (the CLI) are noticed by `PRAGMA data_version` and clear everything.
 */
export class VectorCache {
  private readonly entries = new Map<string, UserVectors>();
  private bytes = 0;
  private seenVersion: number | undefined;
  private readonly dataVersion: BetterSqlite3.Statement<[], number>;

  constructor(
    db: Database,
    private readonly maxBytes: number,
  ) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  get(key: string, load: () => UserVectors): UserVectors {
    if (this.maxBytes <= 0) return load();
    const version = this.dataVersion.get()!;
    if (version !== this.seenVersion) {
      this.clear();
      this.seenVersion = version;
    }
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const loaded = load();
    if (loaded.bytes > this.maxBytes) return loaded;
    this.entries.set(key, loaded);
    this.bytes += loaded.bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return loaded;
  }

  invalidate(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

// Shared by every index over the same connection and tables, so one instance's writes invalidate the others' reads.
const caches = new WeakMap<Database, Map<string, VectorCache>>();

export function vectorCacheFor(db: Database, tables: string, maxBytes: number): VectorCache {
  let byTables = caches.get(db);
  if (!byTables) caches.set(db, (byTables = new Map()));
  let cache = byTables.get(tables);
  if (!cache) byTables.set(tables, (cache = new VectorCache(db, maxBytes)));
  return cache;
}
