/*
 * The sessions projection in MongoDB.
 *
 * Portability: written for what BOTH MongoDB and FerretDB 1.24 (the local and
 * CI test server) support: insertMany ordered:false whose only errors are
 * per-document E11000 (a turn already stored: ignored), findOneAndUpdate with
 * $inc and upsert (no projection), find with sort/limit, countDocuments,
 * deleteMany. No transactions, TTL indexes or change streams.
 *
 * Ties on occurredAt fall back to insertion order, so every turn gets a `seq`
 * from a per-user counter document (`turns_seq`: an append reserves a block per
 * user, every user's at once: one bulk write of $inc and one find). A per-user counter is enough because
 * engram has a single writer per user; FerretDB does not make concurrent
 * updates of one document atomic, so a shared counter would not be safe there.
 */
import type { TurnRole } from '@engram/contracts';
import type { SessionStore, SessionTurn } from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { collectionName, compoundId, isOnlyDuplicateKeyErrors, toMs, upsertById } from './mongo-common';

export interface MongoSessionStoreOptions {
  /** Collection-name suffix for a projection version, e.g. `_v2` (→ `turns_v2`, `turns_v2_seq`) while rebuilding. */
  readonly suffix?: string;
}

interface TurnDocument {
  /** `tenant:user:turnId`: a turn appended twice is stored once. */
  _id: string;
  tenantId: string;
  userId: string;
  sessionId: string;
  turnId: string;
  role: TurnRole;
  speaker?: string;
  text: string;
  occurredAt: string;
  /** occurredAt as epoch ms: the order, robust to ISO times written with an offset (as in SQLite). */
  occurredMs: number;
  /** Insertion order within the user, from the counter: breaks occurredAt ties. */
  seq: number;
}

/** Per-user insertion counter: `next` is one past the last `seq` handed out. */
interface SequenceDocument {
  _id: string;
  tenantId: string;
  userId: string;
  next: number;
}

export class MongoSessionStore implements SessionStore {
  readonly turns: Collection<TurnDocument>;
  readonly sequences: Collection<SequenceDocument>;

  constructor(db: Db, options: MongoSessionStoreOptions = {}) {
    const name = collectionName('turns', options.suffix);
    this.turns = db.collection<TurnDocument>(name, { ignoreUndefined: true });
    this.sequences = db.collection<SequenceDocument>(`${name}_seq`);
  }

  /** Creates the store and its indexes (idempotent; call once at start). */
  static async open(db: Db, options: MongoSessionStoreOptions = {}): Promise<MongoSessionStore> {
    const store = new MongoSessionStore(db, options);
    await store.ensureIndexes();
    return store;
  }

  /** Creates the collections' indexes if missing. Idempotent. */
  async ensureIndexes(): Promise<void> {
    // Serves recent() (equality on the first three, sort on the last two) and, by prefix, countUser/deleteUser.
    await this.turns.createIndex(
      { tenantId: 1, userId: 1, sessionId: 1, occurredMs: 1, seq: 1 },
      { name: 'tenant_user_session_occurred_seq' },
    );
    // Serves previousSession() (the user's turns across sessions, newest first).
    await this.turns.createIndex({ tenantId: 1, userId: 1, occurredMs: 1, seq: 1 }, { name: 'tenant_user_occurred_seq' });
  }

  async append(turns: readonly SessionTurn[]): Promise<void> {
    if (turns.length === 0) return;
    // A turn listed twice in one append: the first one counts (as SQLite's INSERT OR IGNORE).
    const unique = new Map<string, SessionTurn>();
    for (const turn of turns) {
      const id = turnDocumentId(turn);
      if (!unique.has(id)) unique.set(id, turn);
    }
    const byUser = new Map<string, SessionTurn[]>();
    for (const turn of unique.values()) {
      const key = userKey(turn.tenantId, turn.userId);
      const list = byUser.get(key);
      if (list) list.push(turn);
      else byUser.set(key, [turn]);
    }
    const docs: TurnDocument[] = [];
    const firsts = await this.reserveAll(byUser);
    for (const [key, userTurns] of byUser) {
      let seq = firsts.get(key)!;
      for (const turn of userTurns) docs.push(toDocument(turn, seq++));
    }
    try {
      // Unordered: the turns already stored fail alone (E11000) and keep their first seq; the rest are written.
      await this.turns.insertMany(docs, { ordered: false });
    } catch (error) {
      if (!isOnlyDuplicateKeyErrors(error)) throw error;
    }
  }

  async recent(tenantId: string, userId: string, sessionId: string, limit: number): Promise<SessionTurn[]> {
    const n = Math.floor(limit);
    if (!(n > 0)) return [];
    const newestFirst = await this.turns
      .find({ tenantId, userId, sessionId })
      .sort({ occurredMs: -1, seq: -1 })
      .limit(Number.isFinite(n) ? Math.min(n, 2 ** 31 - 1) : 0) // 0: no limit
      .toArray();
    return newestFirst.reverse().map(toTurn);
  }

  async turnIds(tenantId: string, userId: string, sessionIds: readonly string[]): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    // Served by the (tenantId, userId, sessionId, …) index; whole documents, as recent() reads them.
    const docs = await this.turns.find({ tenantId, userId, sessionId: { $in: [...sessionIds] } }).toArray();
    return docs.map((doc) => doc.turnId).sort();
  }

  async turnsById(tenantId: string, userId: string, turnIds: readonly string[]): Promise<SessionTurn[]> {
    if (turnIds.length === 0) return [];
    // By _id: the tenant, user and turn id are the document's key.
    const ids = [...new Set(turnIds)].map((turnId) => compoundId(tenantId, userId, turnId));
    const docs = await this.turns
      .find({ _id: { $in: ids } })
      .sort({ occurredMs: 1, seq: 1 })
      .toArray();
    return docs.map(toTurn);
  }

  async previousSession(tenantId: string, userId: string, excludingSessionId: string, before: string): Promise<string | null> {
    const [latest] = await this.turns
      .find({ tenantId, userId, sessionId: { $ne: excludingSessionId }, occurredMs: { $lte: toMs(before) } })
      .sort({ occurredMs: -1, seq: -1 })
      .limit(1)
      .toArray();
    return latest?.sessionId ?? null;
  }

  async countUser(tenantId: string, userId: string): Promise<number> {
    return this.turns.countDocuments({ tenantId, userId });
  }

  async deleteUser(tenantId: string, userId: string): Promise<void> {
    await this.turns.deleteMany({ tenantId, userId });
    await this.sequences.deleteOne({ _id: userKey(tenantId, userId) });
  }

  async truncate(): Promise<void> {
    await this.turns.deleteMany({});
    await this.sequences.deleteMany({});
  }

  /**
   * The first `seq` of each user's block, every block reserved together: one user is one
   * findOneAndUpdate; several are one bulk write of `$inc` upserts and one find of the counters
   * (two requests per append, not one per user). engram has one writer per user, so no other write
   * moves a counter between the two; a block a failed append reserved is skipped, as before.
   */
  private async reserveAll(byUser: ReadonlyMap<string, readonly SessionTurn[]>): Promise<Map<string, number>> {
    if (byUser.size === 1) {
      const [[key, turns]] = byUser;
      return new Map([[key, await this.reserve(key, turns[0], turns.length)]]);
    }
    const users = [...byUser];
    await this.sequences.bulkWrite(
      users.map(([key, turns]) => ({
        // `multi` for FerretDB's sake (mongo-common.ts); the filter names one _id.
        updateMany: {
          filter: { _id: key },
          update: { $inc: { next: turns.length }, $setOnInsert: { tenantId: turns[0].tenantId, userId: turns[0].userId } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
    const next = new Map<string, number>();
    for (const counter of await this.sequences.find({ _id: { $in: users.map(([key]) => key) } }).toArray())
      next.set(counter._id, counter.next);
    return new Map(
      users.map(([key, turns]) => {
        const end = next.get(key);
        if (end === undefined) throw new Error(`turn sequence ${key} was not stored`);
        return [key, end - turns.length];
      }),
    );
  }

  /** Reserves `count` consecutive seq values for a user; returns the first. */
  private async reserve(key: string, turn: SessionTurn, count: number): Promise<number> {
    const counter = await upsertById(() =>
      this.sequences.findOneAndUpdate(
        { _id: key },
        { $inc: { next: count }, $setOnInsert: { tenantId: turn.tenantId, userId: turn.userId } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    if (!counter) throw new Error(`turn sequence of ${turn.tenantId}/${turn.userId} was not returned`);
    return counter.next - count;
  }
}

function userKey(tenantId: string, userId: string): string {
  return compoundId(tenantId, userId);
}

function turnDocumentId(turn: SessionTurn): string {
  return compoundId(turn.tenantId, turn.userId, turn.turnId);
}

function toDocument(turn: SessionTurn, seq: number): TurnDocument {
  return {
    _id: turnDocumentId(turn),
    tenantId: turn.tenantId,
    userId: turn.userId,
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    role: turn.role,
    ...(turn.speaker == null ? {} : { speaker: turn.speaker }),
    text: turn.text,
    occurredAt: turn.occurredAt,
    occurredMs: toMs(turn.occurredAt),
    seq,
  };
}

function toTurn(doc: TurnDocument): SessionTurn {
  return {
    tenantId: doc.tenantId,
    userId: doc.userId,
    sessionId: doc.sessionId,
    turnId: doc.turnId,
    role: doc.role,
    ...(doc.speaker == null ? {} : { speaker: doc.speaker }),
    text: doc.text,
    occurredAt: doc.occurredAt,
  };
}
