import { createHash } from 'node:crypto';
import type { SearchDocument, SearchHit, SearchIndex, TextQuery, VectorQuery } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import { type Database, immediate, tableNamespace } from './sqlite-database';
import { type UserVectors, type VectorCache, vectorCacheFor } from './sqlite-vector-cache';

export interface SqliteSearchIndexOptions {
  /** Table prefix for a projection version, e.g. `v2_` while rebuilding. */
  readonly namespace?: string;
  /** Memory for decoded vectors of recently searched users (LRU). Default 64 MiB; 0 disables. */
  readonly vectorCacheBytes?: number;
}

type DocumentParams = [
  tenantId: string,
  userId: string,
  memoryId: string,
  revision: number,
  status: string,
  kind: string,
  content: string,
  terms: string,
  entities: string,
  vector: Buffer | null,
  norm: number | null,
  updatedAt: string,
];

/**
 * The search projection in SQLite: a documents table (one row per memory,
 * versioned by revision, vector as a Float32 BLOB) plus an FTS5 index holding
 * only the active documents.
 *
 * Every term is stored and queried as the hex of its UTF-8 bytes. The domain
 * tokenizer has already decided what a term is; hex makes FTS5 treat each one
 * as exactly one opaque token (a CJK bigram, `c++`, `node.js`, `café` stay
 * whole and distinct, as in Elasticsearch's per-term matching), and no term can
 * ever be read as FTS query syntax. An `owner` column holds a per-(tenant,
 * user) token, so MATCH only ever sees that user's documents before ranking.
 */
export class SqliteSearchIndex implements SearchIndex {
  private readonly statements: {
    existing: BetterSqlite3.Statement<[string, string, string], { id: number; revision: number }>;
    insertDocument: BetterSqlite3.Statement<DocumentParams>;
    updateDocument: BetterSqlite3.Statement<[...DocumentParams, number]>;
    insertTerms: BetterSqlite3.Statement<[number, string, string]>;
    deleteTerms: BetterSqlite3.Statement<[number]>;
    searchText: BetterSqlite3.Statement<
      [string, string | null, string | null, string | null, string | null, number],
      { memory_id: string; rank: number }
    >;
    vectors: BetterSqlite3.Statement<[string, string], { memory_id: string; kind: string; vector: Buffer; norm: number }>;
    revisions: BetterSqlite3.Statement<[string, string, string], { memory_id: string; revision: number }>;
    countUser: BetterSqlite3.Statement<[string, string], { n: number }>;
    deleteUserTerms: BetterSqlite3.Statement<[string, string]>;
    deleteUserDocuments: BetterSqlite3.Statement<[string, string]>;
    optimizeTerms: BetterSqlite3.Statement<[]>;
    truncateTerms: BetterSqlite3.Statement<[]>;
    truncateDocuments: BetterSqlite3.Statement<[]>;
  };
  private readonly upsertTx: (documents: readonly SearchDocument[]) => void;
  private readonly deleteUserTx: (tenantId: string, userId: string) => void;
  private readonly truncateTx: () => void;
  private readonly vectorCache: VectorCache;

  constructor(db: Database, options: SqliteSearchIndexOptions = {}) {
    const ns = tableNamespace(options.namespace);
    const docs = `${ns}search_documents`;
    const fts = `${ns}search_terms`;
    this.vectorCache = vectorCacheFor(db, docs, options.vectorCacheBytes ?? 64 * 1024 * 1024);
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${docs} (
        id         INTEGER PRIMARY KEY,
        tenant_id  TEXT    NOT NULL,
        user_id    TEXT    NOT NULL,
        memory_id  TEXT    NOT NULL,
        revision   INTEGER NOT NULL,
        status     TEXT    NOT NULL,
        kind       TEXT    NOT NULL,
        content    TEXT    NOT NULL,
        terms      TEXT    NOT NULL,
        entities   TEXT    NOT NULL,
        vector     BLOB,
        norm       REAL,
        updated_at TEXT    NOT NULL,
        UNIQUE (tenant_id, user_id, memory_id)
      );
      CREATE INDEX IF NOT EXISTS ${docs}_by_status ON ${docs} (tenant_id, user_id, status);
      CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(owner, terms, tokenize = 'ascii');
    `);

    this.statements = {
      existing: db.prepare(`SELECT id, revision FROM ${docs} WHERE tenant_id = ? AND user_id = ? AND memory_id = ?`),
      insertDocument: db.prepare(
        `INSERT INTO ${docs} (tenant_id, user_id, memory_id, revision, status, kind, content, terms, entities, vector, norm, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateDocument: db.prepare(
        `UPDATE ${docs} SET tenant_id = ?, user_id = ?, memory_id = ?, revision = ?, status = ?, kind = ?, content = ?,
           terms = ?, entities = ?, vector = ?, norm = ?, updated_at = ?
         WHERE id = ?`,
      ),
      insertTerms: db.prepare(`INSERT INTO ${fts} (rowid, owner, terms) VALUES (?, ?, ?)`),
      deleteTerms: db.prepare(`DELETE FROM ${fts} WHERE rowid = ?`),
      // Column weights: the owner column only filters, it must not score.
      searchText: db.prepare(
        `SELECT d.memory_id AS memory_id, bm25(${fts}, 0.0, 1.0) AS rank
         FROM ${fts} JOIN ${docs} d ON d.id = ${fts}.rowid
         WHERE ${fts} MATCH ? AND d.status = 'active'
           AND (? IS NULL OR d.kind IN (SELECT value FROM json_each(?)))
           AND (? IS NULL OR d.memory_id IN (SELECT value FROM json_each(?)))
         ORDER BY rank, d.memory_id LIMIT ?`,
      ),
      vectors: db.prepare(
        `SELECT memory_id, kind, vector, norm FROM ${docs}
         WHERE tenant_id = ? AND user_id = ? AND status = 'active' AND vector IS NOT NULL`,
      ),
      revisions: db.prepare(
        `SELECT memory_id, revision FROM ${docs}
         WHERE tenant_id = ? AND user_id = ? AND memory_id IN (SELECT value FROM json_each(?))`,
      ),
      countUser: db.prepare(`SELECT COUNT(*) AS n FROM ${docs} WHERE tenant_id = ? AND user_id = ?`),
      deleteUserTerms: db.prepare(`DELETE FROM ${fts} WHERE rowid IN (SELECT id FROM ${docs} WHERE tenant_id = ? AND user_id = ?)`),
      deleteUserDocuments: db.prepare(`DELETE FROM ${docs} WHERE tenant_id = ? AND user_id = ?`),
      // FTS5 keeps a deleted row's terms in its index segments until they are merged; merging them
      // all drops every deleted term, and secure_delete zeroes the pages they leave. Done when a user
      // is forgotten rather than per write (FTS5's own secure-delete made rebuilds 1.7× the CPU).
      optimizeTerms: db.prepare(`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`),
      truncateTerms: db.prepare(`DELETE FROM ${fts}`),
      truncateDocuments: db.prepare(`DELETE FROM ${docs}`),
    };
    const upsertTx = immediate(db, (documents: readonly SearchDocument[]) => {
      for (const doc of documents) this.upsertOne(doc);
    });
    this.upsertTx = (documents) => {
      try {
        upsertTx(documents);
      } finally {
        for (const doc of documents) this.vectorCache.invalidate(userKey(doc.tenantId, doc.userId));
      }
    };
    this.deleteUserTx = immediate(db, (tenantId: string, userId: string) => {
      if (this.statements.deleteUserTerms.run(tenantId, userId).changes > 0) this.statements.optimizeTerms.run();
      this.statements.deleteUserDocuments.run(tenantId, userId);
    });
    this.truncateTx = immediate(db, () => {
      this.statements.truncateTerms.run();
      this.statements.truncateDocuments.run();
    });
  }

  async upsert(documents: readonly SearchDocument[]): Promise<void> {
    if (documents.length > 0) this.upsertTx(documents);
  }

  async searchText(query: TextQuery): Promise<SearchHit[]> {
    const terms = [...new Set(query.terms.filter((term) => term.length > 0))];
    if (terms.length === 0 || !(query.limit > 0)) return [];
    if (query.kinds?.length === 0 || query.memoryIds?.length === 0) return [];
    const match = `owner : "${ownerToken(query.tenantId, query.userId)}" AND terms : (${terms.map((t) => `"${termToken(t)}"`).join(' OR ')})`;
    const kinds = query.kinds ? JSON.stringify(query.kinds) : null;
    const memoryIds = query.memoryIds ? JSON.stringify(query.memoryIds) : null;
    return this.statements.searchText
      .all(match, kinds, kinds, memoryIds, memoryIds, Math.floor(query.limit))
      .map((row) => ({ memoryId: row.memory_id, score: -row.rank }));
  }

  async searchVector(query: VectorQuery): Promise<SearchHit[]> {
    const q = Float32Array.from(query.vector);
    const qNorm = norm(q);
    if (qNorm === 0 || !(query.limit > 0)) return [];
    const users = this.vectorCache.get(userKey(query.tenantId, query.userId), () => this.loadVectors(query.tenantId, query.userId));
    const kinds = query.kinds ? new Set<string>(query.kinds) : null;
    const memoryIds = query.memoryIds ? new Set(query.memoryIds) : null;
    const hits: SearchHit[] = [];
    for (let d = 0; d < users.vectors.length; d++) {
      if ((kinds && !kinds.has(users.kinds[d])) || (memoryIds && !memoryIds.has(users.memoryIds[d]))) continue;
      const v = users.vectors[d];
      // A vector of another length was embedded by another model: not comparable.
      if (v.length !== q.length || users.norms[d] === 0) continue;
      let dot = 0;
      for (let i = 0; i < q.length; i++) dot += q[i] * v[i];
      hits.push({ memoryId: users.memoryIds[d], score: dot / (qNorm * users.norms[d]) });
    }
    hits.sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0));
    return hits.slice(0, Math.floor(query.limit));
  }

  async revisions(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    if (memoryIds.length === 0) return result;
    for (const row of this.statements.revisions.all(tenantId, userId, JSON.stringify(memoryIds))) {
      result.set(row.memory_id, row.revision);
    }
    return result;
  }

  /** Every stored document of the user, whatever its status. */
  async countUser(tenantId: string, userId: string): Promise<number> {
    return this.statements.countUser.get(tenantId, userId)!.n;
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    this.deleteUserTx(tenantId, userId);
    this.vectorCache.invalidate(userKey(tenantId, userId));
  }

  async truncate(): Promise<void> {
    this.truncateTx();
    this.vectorCache.clear();
  }

  private loadVectors(tenantId: string, userId: string): UserVectors {
    const memoryIds: string[] = [];
    const kinds: string[] = [];
    const vectors: Float32Array[] = [];
    const norms: number[] = [];
    let bytes = 0;
    for (const row of this.statements.vectors.all(tenantId, userId)) {
      memoryIds.push(row.memory_id);
      kinds.push(row.kind);
      vectors.push(toFloat32(row.vector));
      norms.push(row.norm);
      bytes += row.vector.byteLength + 2 * row.memory_id.length + 64;
    }
    return { memoryIds, kinds, vectors, norms, bytes };
  }

  private upsertOne(doc: SearchDocument): void {
    const s = this.statements;
    const existing = s.existing.get(doc.tenantId, doc.userId, doc.memoryId);
    if (existing && existing.revision >= doc.revision) return; // a replay or a late, older decision
    const vector = doc.vector.length > 0 ? Float32Array.from(doc.vector) : null;
    const params: DocumentParams = [
      doc.tenantId,
      doc.userId,
      doc.memoryId,
      doc.revision,
      doc.status,
      doc.kind,
      doc.content,
      JSON.stringify(doc.terms),
      JSON.stringify(doc.entities),
      vector ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength) : null,
      vector ? norm(vector) : null,
      doc.updatedAt,
    ];
    let id: number;
    if (existing) {
      id = existing.id;
      s.updateDocument.run(...params, id);
      s.deleteTerms.run(id);
    } else {
      id = Number(s.insertDocument.run(...params).lastInsertRowid);
    }
    if (doc.status === 'active') {
      s.insertTerms.run(
        id,
        ownerToken(doc.tenantId, doc.userId),
        doc.terms
          .filter((t) => t.length > 0)
          .map(termToken)
          .join(' '),
      );
    }
  }
}

const userKey = (tenantId: string, userId: string) => JSON.stringify([tenantId, userId]);

/** Unambiguous for any ids (`a:b`+`c` and `a`+`b:c` differ), and plain hex so FTS5 sees one token. */
function ownerToken(tenantId: string, userId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([tenantId, userId]))
    .digest('hex')
    .slice(0, 32);
}

function termToken(term: string): string {
  return Buffer.from(term, 'utf8').toString('hex');
}

function norm(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
}

/** A copy, so a cached vector never pins a larger shared buffer. */
function toFloat32(blob: Buffer): Float32Array {
  const copy = new Float32Array(blob.byteLength / 4);
  new Uint8Array(copy.buffer).set(blob);
  return copy;
}
