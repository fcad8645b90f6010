import type { LogMigration, LogVersions, LogVersionState } from '@engram/ports';
import { INITIAL_LOG_VERSION } from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './mongo-common';

interface LogVersionDocument {
  _id: 'log';
  version: number;
  revision: number;
  migration?: LogMigration;
}

/** The log's version (distributed): one document in `log_versions`, written by compare-and-set on its revision. */
export class MongoLogVersions implements LogVersions {
  private readonly states: Collection<LogVersionDocument>;

  constructor(db: Db) {
    this.states = db.collection<LogVersionDocument>('log_versions');
  }

  async read(): Promise<LogVersionState> {
    const document = await this.states.findOne({ _id: 'log' });
    if (!document) return INITIAL_LOG_VERSION;
    return { version: document.version, revision: document.revision, ...(document.migration ? { migration: document.migration } : {}) };
  }

  async replace(expectedRevision: number, next: Omit<LogVersionState, 'revision'>): Promise<boolean> {
    const document: LogVersionDocument = { _id: 'log', version: next.version, revision: expectedRevision + 1, ...(next.migration ? { migration: next.migration } : {}) };
    if (expectedRevision === 0) {
      try {
        await this.states.insertOne(document);
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    }
    const { matchedCount } = await this.states.replaceOne({ _id: 'log', revision: expectedRevision }, document);
    return matchedCount === 1;
  }
}
