import type { TurnRole } from '@engram/contracts';
import type { SessionStore, SessionTurn } from '@engram/ports';
import type BetterSqlite3 from 'better-sqlite3';
import { type Database, immediate, tableNamespace } from './sqlite-database';

export interface SqliteSessionStoreOptions {
  /** Table prefix for a projection version, e.g. `v2_` while rebuilding. */
  readonly namespace?: string;
}

interface TurnRow {
  tenant_id: string;
  user_id: string;
  session_id: string;
  turn_id: string;
  role: TurnRole;
  speaker: string | null;
  text: string;
  occurred_at: string;
}

/** The sessions projection: turns by session, for the recent window. */
export class SqliteSessionStore implements SessionStore {
  private readonly statements: {
    insert: BetterSqlite3.Statement<[string, string, string, string, string, string | null, string, string, number]>;
    recent: BetterSqlite3.Statement<[string, string, string, number], TurnRow>;
    turnIds: BetterSqlite3.Statement<[string, string, string], { turn_id: string }>;
    turnsById: BetterSqlite3.Statement<[string, string, string], TurnRow>;
    previous: BetterSqlite3.Statement<[string, string, string, number], { session_id: string }>;
    countUser: BetterSqlite3.Statement<[string, string], { n: number }>;
    deleteUser: BetterSqlite3.Statement<[string, string]>;
    truncate: BetterSqlite3.Statement<[]>;
  };
  private readonly appendTx: (turns: readonly SessionTurn[]) => void;

  constructor(db: Database, options: SqliteSessionStoreOptions = {}) {
    const t = `${tableNamespace(options.namespace)}session_turns`;
    // A rowid table on purpose: the rowid is the insertion order that breaks occurredAt ties.
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${t} (
        tenant_id   TEXT    NOT NULL,
        user_id     TEXT    NOT NULL,
        session_id  TEXT    NOT NULL,
        turn_id     TEXT    NOT NULL,
        role        TEXT    NOT NULL,
        speaker     TEXT,
        text        TEXT    NOT NULL,
        occurred_at TEXT    NOT NULL,
        occurred_ms INTEGER NOT NULL,
        UNIQUE (tenant_id, user_id, turn_id)
      );
      CREATE INDEX IF NOT EXISTS ${t}_by_session ON ${t} (tenant_id, user_id, session_id, occurred_ms);
      CREATE INDEX IF NOT EXISTS ${t}_by_user_time ON ${t} (tenant_id, user_id, occurred_ms);
    `);
    this.statements = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO ${t} (tenant_id, user_id, session_id, turn_id, role, speaker, text, occurred_at, occurred_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      recent: db.prepare(
        `SELECT tenant_id, user_id, session_id, turn_id, role, speaker, text, occurred_at FROM ${t}
         WHERE tenant_id = ? AND user_id = ? AND session_id = ?
         ORDER BY occurred_ms DESC, rowid DESC LIMIT ?`,
      ),
      turnIds: db.prepare(
        `SELECT turn_id FROM ${t}
         WHERE tenant_id = ? AND user_id = ? AND session_id IN (SELECT value FROM json_each(?))`,
      ),
      turnsById: db.prepare(
        `SELECT tenant_id, user_id, session_id, turn_id, role, speaker, text, occurred_at FROM ${t}
         WHERE tenant_id = ? AND user_id = ? AND turn_id IN (SELECT value FROM json_each(?))
         ORDER BY occurred_ms, rowid`,
      ),
      previous: db.prepare(
        `SELECT session_id FROM ${t}
         WHERE tenant_id = ? AND user_id = ? AND session_id <> ? AND occurred_ms <= ?
         ORDER BY occurred_ms DESC, rowid DESC LIMIT 1`,
      ),
      countUser: db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE tenant_id = ? AND user_id = ?`),
      deleteUser: db.prepare(`DELETE FROM ${t} WHERE tenant_id = ? AND user_id = ?`),
      truncate: db.prepare(`DELETE FROM ${t}`),
    };
    this.appendTx = immediate(db, (turns: readonly SessionTurn[]) => {
      for (const turn of turns) {
        const ms = Date.parse(turn.occurredAt);
        this.statements.insert.run(
          turn.tenantId,
          turn.userId,
          turn.sessionId,
          turn.turnId,
          turn.role,
          turn.speaker ?? null,
          turn.text,
          turn.occurredAt,
          Number.isFinite(ms) ? ms : 0,
        );
      }
    });
  }

  async append(turns: readonly SessionTurn[]): Promise<void> {
    if (turns.length > 0) this.appendTx(turns);
  }

  async recent(tenantId: string, userId: string, sessionId: string, limit: number): Promise<SessionTurn[]> {
    if (!(limit > 0)) return [];
    return this.statements.recent.all(tenantId, userId, sessionId, Math.floor(limit)).reverse().map(toTurn);
  }

  async turnIds(tenantId: string, userId: string, sessionIds: readonly string[]): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    return this.statements.turnIds
      .all(tenantId, userId, JSON.stringify(sessionIds))
      .map((row) => row.turn_id)
      .sort();
  }

  async turnsById(tenantId: string, userId: string, turnIds: readonly string[]): Promise<SessionTurn[]> {
    if (turnIds.length === 0) return [];
    return this.statements.turnsById.all(tenantId, userId, JSON.stringify(turnIds)).map(toTurn);
  }

  async previousSession(tenantId: string, userId: string, excludingSessionId: string, before: string): Promise<string | null> {
    const ms = Date.parse(before);
    return this.statements.previous.get(tenantId, userId, excludingSessionId, Number.isFinite(ms) ? ms : 0)?.session_id ?? null;
  }

  async countUser(tenantId: string, userId: string): Promise<number> {
    return this.statements.countUser.get(tenantId, userId)!.n;
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    this.statements.deleteUser.run(tenantId, userId);
  }

  async truncate(): Promise<void> {
    this.statements.truncate.run();
  }
}

function toTurn(row: TurnRow): SessionTurn {
  return {
    tenantId: row.tenant_id,
    userId: row.user_id,
    sessionId: row.session_id,
    turnId: row.turn_id,
    role: row.role,
    ...(row.speaker === null ? {} : { speaker: row.speaker }),
    text: row.text,
    occurredAt: row.occurred_at,
  };
}
