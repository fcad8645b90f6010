import type { LogVersions, LogVersionState } from '@engram/ports';
import { INITIAL_LOG_VERSION } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './sqlite-database';

/** The log's version (embedded): one row in the engram database, written by compare-and-set on its revision. */
export class SqliteLogVersions implements LogVersions {
  private readonly statements: {
    read: BetterSqlite3.Statement<[], { state: string; revision: number }>;
    insert: BetterSqlite3.Statement<[string]>;
    update: BetterSqlite3.Statement<[string, number, number]>;
  };

  constructor(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS log_versions (
        id       INTEGER PRIMARY KEY CHECK (id = 1),
        state    TEXT    NOT NULL,
        revision INTEGER NOT NULL
      );
    `);
    this.statements = {
      read: db.prepare('SELECT state, revision FROM log_versions WHERE id = 1'),
      insert: db.prepare('INSERT INTO log_versions (id, state, revision) VALUES (1, ?, 1) ON CONFLICT (id) DO NOTHING'),
      update: db.prepare('UPDATE log_versions SET state = ?, revision = ? WHERE id = 1 AND revision = ?'),
    };
  }

  async read(): Promise<LogVersionState> {
    const row = this.statements.read.get();
    if (!row) return INITIAL_LOG_VERSION;
    return { ...(JSON.parse(row.state) as Omit<LogVersionState, 'revision'>), revision: row.revision };
  }

  async replace(expectedRevision: number, next: Omit<LogVersionState, 'revision'>): Promise<boolean> {
    const { version, migration } = next;
    const state = JSON.stringify({ version, ...(migration ? { migration } : {}) });
    const run =
      expectedRevision === 0
        ? this.statements.insert.run(state)
        : this.statements.update.run(state, expectedRevision + 1, expectedRevision);
    return run.changes === 1;
  }
}
