import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'better-sqlite3';
import { EngramConfig } from '@engram/config';
import {
  openSqliteDatabase,
  SqliteAccessStore,
  SqliteEventLog,
  SqliteFactStore,
  SqliteSearchIndex,
  SqliteSessionStore,
} from '@engram/adapters-sqlite';
import { createEmbedder } from '@engram/embedding';
import { AccessStore, Embedder, EventLog, FactStore, SearchIndex, SessionStore } from '@engram/ports';

export const SQLITE_DATABASE = Symbol('SqliteDatabase');

/** The embedded mode's adapters: one SQLite file under ENGRAM_DATA_DIR holds the log and every projection. */
@Global()
@Module({
  providers: [
    {
      provide: SQLITE_DATABASE,
      inject: [EngramConfig],
      useFactory: (config: EngramConfig): Database => {
        fs.mkdirSync(config.ENGRAM_DATA_DIR, { recursive: true });
        return openSqliteDatabase(path.join(config.ENGRAM_DATA_DIR, 'engram.db'));
      },
    },
    { provide: EventLog, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteEventLog(db) },
    { provide: FactStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteFactStore(db) },
    { provide: SessionStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteSessionStore(db) },
    { provide: SearchIndex, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteSearchIndex(db) },
    { provide: AccessStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteAccessStore(db) },
    { provide: Embedder, inject: [EngramConfig], useFactory: (c: EngramConfig) => createEmbedder(c) },
  ],
  exports: [SQLITE_DATABASE, EventLog, FactStore, SessionStore, SearchIndex, AccessStore, Embedder],
})
export class EmbeddedBindingsModule implements OnApplicationShutdown {
  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(SQLITE_DATABASE) private readonly db: Database,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.eventLog.close();
    if (this.db.open) this.db.close();
  }
}
