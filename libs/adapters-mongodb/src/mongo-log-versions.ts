import type { LogMigration, LogVersions, LogVersionState } from '@engram/ports';
import { INITIAL_LOG_VERSION } from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './mongo-common';

interface LogVersionDocument {
  /** The revision: one document per write. */
  _id: number;
  version: number;
  migration?: LogMigration;
}

/** Revisions kept behind the newest (older ones are deleted as new ones are written). */
const KEPT_REVISIONS = 20;

/**
 * The log's version (distributed), in `log_versions`: one document per revision, the newest is
 * the state. Writing revision N+1 is an insert by `_id`, which only one writer can win; a
 * conditional update would not do, since concurrent updates of one document are not atomic on
 * FerretDB (mongo-common.ts).
 */
export class MongoLogVersions implements LogVersions {
  private readonly states: Collection<LogVersionDocument>;

  constructor(db: Db) {
    this.states = db.collection<LogVersionDocument>('log_versions');
  }

  async read(): Promise<LogVersionState> {
    const [newest] = await this.states.find({}).sort({ _id: -1 }).limit(1).toArray();
    if (!newest) return INITIAL_LOG_VERSION;
    return { version: newest.version, revision: newest._id, ...(newest.migration ? { migration: newest.migration } : {}) };
  }

  async replace(expectedRevision: number, next: Omit<LogVersionState, 'revision'>): Promise<boolean> {
    const revision = expectedRevision + 1;
    try {
      await this.states.insertOne({ _id: revision, version: next.version, ...(next.migration ? { migration: next.migration } : {}) });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    // A writer more than KEPT_REVISIONS behind finds its slot free again: it is not the newest, so it lost.
    if ((await this.states.countDocuments({ _id: { $gt: revision } })) > 0) {
      await this.states.deleteOne({ _id: revision });
      return false;
    }
    await this.states.deleteMany({ _id: { $lt: revision - KEPT_REVISIONS } });
    return true;
  }
}
