// The layout of the SQLite search index's terms: posting tokens keyed by user, the counts BM25 needs, and the migration from the layout before.
import { createHash } from 'node:crypto';
import { documentLength } from './sqlite-bm25';
import { type Database, immediate } from './sqlite-database';

/** What a write does to the index's counts, summed over a transaction so each term's row is written once. */
export class CountChange {
  readonly terms = new Map<string, number>();
  documents = 0;
  tokens = 0;

  add(terms: readonly string[]): void {
    this.count(terms, 1);
  }

  remove(terms: readonly string[]): void {
    this.count(terms, -1);
  }

  private count(terms: readonly string[], sign: 1 | -1): void {
    this.documents += sign;
    this.tokens += sign * documentLength(terms);
    for (const term of new Set(terms)) {
      if (term.length === 0) continue;
      const token = termToken(term);
      this.terms.set(token, (this.terms.get(token) ?? 0) + sign);
    }
  }
}

export function createPostingTables(db: Database, postings: string, counts: string, totals: string): void {
  // Contentless (the documents table holds the terms), rowids only (no positions are queried): the index alone.
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS ${postings} USING fts5(
      terms, content = '', contentless_delete = 1, detail = none, tokenize = 'ascii'
    );
    CREATE TABLE IF NOT EXISTS ${counts} (term TEXT PRIMARY KEY, documents INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${totals} (id INTEGER PRIMARY KEY CHECK (id = 1), documents INTEGER NOT NULL, tokens INTEGER NOT NULL);
    INSERT OR IGNORE INTO ${totals} (id, documents, tokens) VALUES (1, 0, 0);
  `);
}

/**
 * A data directory from before per-user postings has `search_terms` (FTS5 with an owner column):
 * its postings and counts are rebuilt from the documents table, which holds every active
 * document's terms, and the old table is dropped — one transaction, so another process on the
 * file (the CLI) sees the old layout or the new one, and the first to open it does the work.
 */
export function migrateFromOwnerColumn(db: Database, ns: string): void {
  const old = `${ns}search_terms`;
  const exists = db.prepare<[string], number>("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  if (exists.get(old) === 0) return;
  immediate(db, () => {
    if (exists.get(old) === 0) return;
    createPostingTables(db, `${ns}search_postings`, `${ns}search_term_counts`, `${ns}search_totals`);
    const docs = `${ns}search_documents`;
    const page = db.prepare<[number], { id: number; tenant_id: string; user_id: string; terms: string }>(
      `SELECT id, tenant_id, user_id, terms FROM ${docs} WHERE status = 'active' AND id > ? ORDER BY id LIMIT 2000`,
    );
    const insert = db.prepare(`INSERT INTO ${ns}search_postings (rowid, terms) VALUES (?, ?)`);
    const change = new CountChange();
    for (let after = 0, rows = page.all(after); rows.length > 0; rows = page.all(after)) {
      for (const row of rows) {
        const terms = JSON.parse(row.terms) as string[];
        insert.run(row.id, postingsOf(row.tenant_id, row.user_id, terms));
        change.add(terms);
      }
      after = rows[rows.length - 1].id;
    }
    const addTermCount = db.prepare(`INSERT INTO ${ns}search_term_counts (term, documents) VALUES (?, ?)`);
    for (const [term, documents] of change.terms) addTermCount.run(term, documents);
    db.prepare(`UPDATE ${ns}search_totals SET documents = ?, tokens = ? WHERE id = 1`).run(change.documents, change.tokens);
    db.exec(`DROP TABLE ${old}`);
  })();
}

let lastKey: { readonly tenantId: string; readonly userId: string; readonly key: string } | null = null;

/**
 * The prefix of a user's posting tokens: 64 bits of a hash, plain hex so FTS5 sees one token with
 * the term's hex after it. Unambiguous for any ids (`a:b`+`c` and `a`+`b:c` differ).
 */

export function postingKey(tenantId: string, userId: string): string {
  // A batch's documents come user by user: the last user's key is most often the one asked for.
  if (lastKey && tenantId === lastKey.tenantId && userId === lastKey.userId) return lastKey.key;
  const key = createHash('sha256')
    .update(JSON.stringify([tenantId, userId]))
    .digest('hex')
    .slice(0, 16);
  lastKey = { tenantId, userId, key };
  return key;
}

export function postingsOf(tenantId: string, userId: string, terms: readonly string[]): string {
  const key = postingKey(tenantId, userId);
  return terms
    .filter((t) => t.length > 0)
    .map((t) => key + termToken(t))
    .join(' ');
}

export function termToken(term: string): string {
  let token = tokens.get(term) ?? tokensBefore.get(term);
  if (token === undefined) {
    token = Buffer.from(term, 'utf8').toString('hex');
    if (tokens.size >= TOKENS_KEPT) {
      tokensBefore = tokens;
      tokens = new Map();
    }
    tokens.set(term, token);
  }
  return token;
}

/**
 * Terms' tokens recently made, in two generations of at most TOKENS_KEPT each (a few MB): every
 * document's terms are encoded twice (postings and counts), and a vocabulary's words recur, so
 * most are found here rather than encoded through a Buffer again (~170 ns → ~10 ns a term).
 */
const TOKENS_KEPT = 50_000;
let tokens = new Map<string, string>();
let tokensBefore = new Map<string, string>();
