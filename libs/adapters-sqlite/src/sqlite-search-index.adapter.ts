import type { SearchDocument, SearchHit, SearchIndex, TextQuery, VectorQuery } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import { Bm25Scorer, type IndexStatistics } from './sqlite-bm25';
import { type Database, immediate, tableNamespace } from './sqlite-database';
import { CountChange, createPostingTables, migrateFromOwnerColumn, postingKey, postingsOf, termToken } from './sqlite-search-postings';
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
 * versioned by revision, vector as a Float32 BLOB) plus an FTS5 index of the
 * active documents' terms, and the counts BM25 needs.
 *
 * Every term is stored and queried as the hex of its UTF-8 bytes. The domain
 * tokenizer has already decided what a term is; hex makes FTS5 treat each one
 * as exactly one opaque token (a CJK bigram, `c++`, `node.js`, `café` stay
 * whole and distinct, as in Elasticsearch's per-term matching), and no term can
 * ever be read as FTS query syntax.
 *
 * A query costs what its user holds, not what the deployment holds: each
 * posting's token starts with a key of its (tenant, user) (`userKey`), so a
 * user's terms are posting lists of their own and MATCH reads no one else's;
 * and the scores are computed here (`Bm25Scorer`) from counts kept on write
 * (`search_term_counts`, `search_totals`) instead of FTS5's `bm25()`, which
 * counts each term's documents by walking its posting list over every user.
 * The counts are the whole index's, as FTS5's were, so scores are unchanged.
 */
export class SqliteSearchIndex implements SearchIndex {
  private readonly statements: {
    existing: BetterSqlite3.Statement<[string, string, string], { id: number; revision: number; status: string; terms: string }>;
    insertDocument: BetterSqlite3.Statement<DocumentParams>;
    updateDocument: BetterSqlite3.Statement<[...DocumentParams, number]>;
    insertPostings: BetterSqlite3.Statement<[number, string]>;
    deletePostings: BetterSqlite3.Statement<[number]>;
    addTermCounts: BetterSqlite3.Statement<[string]>;
    dropZeroTermCounts: BetterSqlite3.Statement<[string]>;
    addTotals: BetterSqlite3.Statement<[number, number]>;
    searchText: BetterSqlite3.Statement<
      [string, string, string, string | null, string | null, string | null, string | null],
      { memory_id: string; terms: string }
    >;
    termCounts: BetterSqlite3.Statement<[string], { term: string; documents: number }>;
    totals: BetterSqlite3.Statement<[], { documents: number; tokens: number }>;
    activeOfUser: BetterSqlite3.Statement<[string, string], { terms: string }>;
    vectors: BetterSqlite3.Statement<[string, string], { memory_id: string; kind: string; vector: Buffer; norm: number }>;
    revisions: BetterSqlite3.Statement<[string, string, string], { memory_id: string; revision: number }>;
    countUser: BetterSqlite3.Statement<[string, string], { n: number }>;
    deleteUserPostings: BetterSqlite3.Statement<[string, string]>;
    deleteUserDocuments: BetterSqlite3.Statement<[string, string]>;
    optimizePostings: BetterSqlite3.Statement<[]>;
    truncatePostings: BetterSqlite3.Statement<[]>;
    truncateTermCounts: BetterSqlite3.Statement<[]>;
    truncateTotals: BetterSqlite3.Statement<[]>;
    truncateDocuments: BetterSqlite3.Statement<[]>;
  };
  private readonly upsertTx: (documents: readonly SearchDocument[]) => void;
  private readonly deleteUserTx: (tenantId: string, userId: string) => void;
  private readonly truncateTx: () => void;
  private readonly vectorCache: VectorCache;

  constructor(db: Database, options: SqliteSearchIndexOptions = {}) {
    const ns = tableNamespace(options.namespace);
    const docs = `${ns}search_documents`;
    const postings = `${ns}search_postings`;
    const counts = `${ns}search_term_counts`;
    const totals = `${ns}search_totals`;
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
    `);
    // Before this layout (${ns}search_terms: an owner column beside global terms), the index is rebuilt once from the documents table.
    migrateFromOwnerColumn(db, ns);
    createPostingTables(db, postings, counts, totals);

    this.statements = {
      existing: db.prepare(`SELECT id, revision, status, terms FROM ${docs} WHERE tenant_id = ? AND user_id = ? AND memory_id = ?`),
      insertDocument: db.prepare(
        `INSERT INTO ${docs} (tenant_id, user_id, memory_id, revision, status, kind, content, terms, entities, vector, norm, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateDocument: db.prepare(
        `UPDATE ${docs} SET tenant_id = ?, user_id = ?, memory_id = ?, revision = ?, status = ?, kind = ?, content = ?,
           terms = ?, entities = ?, vector = ?, norm = ?, updated_at = ?
         WHERE id = ?`,
      ),
      insertPostings: db.prepare(`INSERT INTO ${postings} (rowid, terms) VALUES (?, ?)`),
      deletePostings: db.prepare(`DELETE FROM ${postings} WHERE rowid = ?`),
      // Deltas as a JSON object {term: change}.
      addTermCounts: db.prepare(
        `INSERT INTO ${counts} (term, documents) SELECT key, value FROM json_each(?) WHERE true
         ON CONFLICT (term) DO UPDATE SET documents = documents + excluded.documents`,
      ),
      // A term no active document holds is not kept: a forgotten user's words leave the file.
      dropZeroTermCounts: db.prepare(
        `DELETE FROM ${counts} WHERE documents <= 0 AND term IN (SELECT key FROM json_each(?) WHERE value < 0)`,
      ),
      addTotals: db.prepare(`UPDATE ${totals} SET documents = documents + ?, tokens = tokens + ? WHERE id = 1`),
      // The user's own posting lists; the tenant and user are checked again on the row, so that two
      // users whose keys collided would still see only their own documents.
      searchText: db.prepare(
        `SELECT d.memory_id AS memory_id, d.terms AS terms
         FROM ${postings} JOIN ${docs} d ON d.id = ${postings}.rowid
         WHERE ${postings} MATCH ? AND d.tenant_id = ? AND d.user_id = ? AND d.status = 'active'
           AND (? IS NULL OR d.kind IN (SELECT value FROM json_each(?)))
           AND (? IS NULL OR d.memory_id IN (SELECT value FROM json_each(?)))`,
      ),
      termCounts: db.prepare(`SELECT term, documents FROM ${counts} WHERE term IN (SELECT value FROM json_each(?))`),
      totals: db.prepare(`SELECT documents, tokens FROM ${totals} WHERE id = 1`),
      activeOfUser: db.prepare(`SELECT terms FROM ${docs} WHERE tenant_id = ? AND user_id = ? AND status = 'active'`),
      vectors: db.prepare(
        `SELECT memory_id, kind, vector, norm FROM ${docs}
         WHERE tenant_id = ? AND user_id = ? AND status = 'active' AND vector IS NOT NULL`,
      ),
      revisions: db.prepare(
        `SELECT memory_id, revision FROM ${docs}
         WHERE tenant_id = ? AND user_id = ? AND memory_id IN (SELECT value FROM json_each(?))`,
      ),
      countUser: db.prepare(`SELECT COUNT(*) AS n FROM ${docs} WHERE tenant_id = ? AND user_id = ?`),
      deleteUserPostings: db.prepare(
        `DELETE FROM ${postings} WHERE rowid IN (SELECT id FROM ${docs} WHERE tenant_id = ? AND user_id = ? AND status = 'active')`,
      ),
      deleteUserDocuments: db.prepare(`DELETE FROM ${docs} WHERE tenant_id = ? AND user_id = ?`),
      // FTS5 keeps a deleted row's terms in its index segments until they are merged; merging them
      // all drops every deleted term, and secure_delete zeroes the pages they leave. Done when a user
      // is forgotten rather than per write (FTS5's own secure-delete made rebuilds 1.7× the CPU).
      optimizePostings: db.prepare(`INSERT INTO ${postings} (${postings}) VALUES ('optimize')`),
      truncatePostings: db.prepare(`DELETE FROM ${postings}`),
      truncateTermCounts: db.prepare(`DELETE FROM ${counts}`),
      truncateTotals: db.prepare(`UPDATE ${totals} SET documents = 0, tokens = 0 WHERE id = 1`),
      truncateDocuments: db.prepare(`DELETE FROM ${docs}`),
    };
    const upsertTx = immediate(db, (documents: readonly SearchDocument[]) => {
      const change = new CountChange();
      for (const doc of documents) this.upsertOne(doc, change);
      this.apply(change);
    });
    this.upsertTx = (documents) => {
      try {
        upsertTx(documents);
      } finally {
        for (const doc of documents) this.vectorCache.invalidate(userKey(doc.tenantId, doc.userId));
      }
    };
    this.deleteUserTx = immediate(db, (tenantId: string, userId: string) => {
      const change = new CountChange();
      for (const row of this.statements.activeOfUser.all(tenantId, userId)) change.remove(JSON.parse(row.terms) as string[]);
      if (this.statements.deleteUserPostings.run(tenantId, userId).changes > 0) this.statements.optimizePostings.run();
      this.statements.deleteUserDocuments.run(tenantId, userId);
      this.apply(change);
    });
    this.truncateTx = immediate(db, () => {
      this.statements.truncatePostings.run();
      this.statements.truncateTermCounts.run();
      this.statements.truncateTotals.run();
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
    const key = postingKey(query.tenantId, query.userId);
    const match = terms.map((t) => `"${key}${termToken(t)}"`).join(' OR ');
    const kinds = query.kinds ? JSON.stringify(query.kinds) : null;
    const memoryIds = query.memoryIds ? JSON.stringify(query.memoryIds) : null;
    const rows = this.statements.searchText.all(match, query.tenantId, query.userId, kinds, kinds, memoryIds, memoryIds);
    if (rows.length === 0) return [];
    const scorer = new Bm25Scorer(terms, this.statistics(terms));
    const hits = rows.map((row) => ({ memoryId: row.memory_id, score: scorer.score(JSON.parse(row.terms) as string[]) }));
    // As FTS5's `ORDER BY rank, memory_id` did: the best first, ties by id.
    hits.sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0));
    return hits.slice(0, Math.floor(query.limit));
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

  private statistics(terms: readonly string[]): IndexStatistics {
    const totals = this.statements.totals.get()!;
    const documentsWith = new Map<string, number>();
    for (const row of this.statements.termCounts.all(JSON.stringify(terms.map(termToken)))) documentsWith.set(row.term, row.documents);
    return { ...totals, documentsWith: (term) => documentsWith.get(termToken(term)) ?? 0 };
  }

  private apply(change: CountChange): void {
    const s = this.statements;
    // One statement for the batch (a call per term cost more than the B-tree work), in key order.
    const deltas = JSON.stringify(
      Object.fromEntries([...change.terms].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : 1))),
    );
    s.addTermCounts.run(deltas);
    s.dropZeroTermCounts.run(deltas);
    if (change.documents !== 0 || change.tokens !== 0) s.addTotals.run(change.documents, change.tokens);
  }

  private upsertOne(doc: SearchDocument, change: CountChange): void {
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
      if (existing.status === 'active') {
        s.deletePostings.run(id);
        change.remove(JSON.parse(existing.terms) as string[]);
      }
    } else {
      id = Number(s.insertDocument.run(...params).lastInsertRowid);
    }
    if (doc.status === 'active') {
      s.insertPostings.run(id, postingsOf(doc.tenantId, doc.userId, doc.terms));
      change.add(doc.terms);
    }
  }
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

const userKey = (tenantId: string, userId: string) => JSON.stringify([tenantId, userId]);
