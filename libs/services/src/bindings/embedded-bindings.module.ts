import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'better-sqlite3';
import { EngramConfig } from '@engram/config';
import {
  openSqliteDatabase,
  SqliteAccessStore,
  SqliteEventLog,
  SqliteKeyStore,
  SqliteLogVersions,
  SqliteRebuildLedger,
  sqliteFactStoreVersions,
  sqliteSearchIndexVersions,
  sqliteSessionStoreVersions,
} from '@engram/adapters-sqlite';
import { createEmbedder } from '@engram/embedding';
import {
  AccessStore,
  Embedder,
  EventLog,
  FactStore,
  FactStoreVersions,
  followActiveVersion,
  KeyStore,
  LogVersions,
  ProjectionVersions,
  RebuildLedger,
  SearchIndex,
  SearchIndexVersions,
  SessionStore,
  SessionStoreVersions,
} from '@engram/ports';
import { DataKeyRing, loadMasterKeys, SealingEventLog } from '../crypto';
import { EngramMetrics } from '../observability/metrics';
import { STORED_EVENT_LOG } from './stored-event-log';
import { VersionedTopicsEventLog } from './versioned-topics-event-log';

export const SQLITE_DATABASE = Symbol('SqliteDatabase');

/** The embedded mode's adapters: one SQLite file under ENGRAM_DATA_DIR holds the log and every projection. */
@Global()
@Module({
  providers: [
    {
      provide: SQLITE_DATABASE,
      inject: [EngramConfig],
      useFactory: (config: EngramConfig): Database => {
        // Only its owner may read the data directory: the log, the projections, the master key.
        fs.mkdirSync(config.ENGRAM_DATA_DIR, { recursive: true, mode: 0o700 });
        fs.chmodSync(config.ENGRAM_DATA_DIR, 0o700);
        return openSqliteDatabase(path.join(config.ENGRAM_DATA_DIR, 'engram.db'));
      },
    },
    // Data keys in the engram database, wrapped by ENGRAM_MASTER_KEY or the data directory's master.key
    // (and, during a rotation, still read under ENGRAM_PREVIOUS_MASTER_KEY or master.key.next).
    {
      provide: KeyStore,
      inject: [SQLITE_DATABASE, EngramConfig],
      useFactory: (db: Database, config: EngramConfig) => {
        const { current, previous } = loadMasterKeys(config);
        return new SqliteKeyStore(db, current, previous);
      },
    },
    { provide: DataKeyRing, inject: [KeyStore], useFactory: (store: KeyStore) => new DataKeyRing(store) },
    {
      provide: STORED_EVENT_LOG,
      inject: [SQLITE_DATABASE, EngramConfig],
      useFactory: (db: Database, config: EngramConfig) =>
        new SqliteEventLog(db, { maxBatchSize: config.ENGRAM_BATCH_SIZE, lingerMs: config.ENGRAM_BATCH_LINGER_MS }),
    },
    // Which version of the topics the log is at (`engram encrypt-log` moves it).
    { provide: LogVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteLogVersions(db) },
    {
      provide: EventLog,
      inject: [STORED_EVENT_LOG, LogVersions, EngramConfig, DataKeyRing, EngramMetrics],
      useFactory: (stored: EventLog, versions: LogVersions, config: EngramConfig, keys: DataKeyRing, metrics: EngramMetrics) =>
        new SealingEventLog(new VersionedTopicsEventLog(stored, versions, { maxAgeMs: config.ENGRAM_PROJECTION_POINTER_TTL_MS }), keys, {
          onUndecryptable: (topic) => metrics.undecryptable.inc({ topic }),
        }),
    },
    // Versioned projections: tables per version (`facts`, `v2_facts`, …) behind a pointer row that
    // the live stores read on every call (other processes on the file see a swap at once).
    { provide: FactStoreVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteFactStoreVersions(db) },
    { provide: SessionStoreVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteSessionStoreVersions(db) },
    { provide: SearchIndexVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteSearchIndexVersions(db) },
    { provide: RebuildLedger, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteRebuildLedger(db) },
    { provide: FactStore, inject: [FactStoreVersions], useFactory: (v: ProjectionVersions<FactStore>) => followActiveVersion(v) },
    { provide: SessionStore, inject: [SessionStoreVersions], useFactory: (v: ProjectionVersions<SessionStore>) => followActiveVersion(v) },
    { provide: SearchIndex, inject: [SearchIndexVersions], useFactory: (v: ProjectionVersions<SearchIndex>) => followActiveVersion(v) },
    { provide: AccessStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteAccessStore(db) },
    { provide: Embedder, inject: [EngramConfig], useFactory: (c: EngramConfig) => createEmbedder(c) },
  ],
  exports: [
    SQLITE_DATABASE,
    EventLog,
    STORED_EVENT_LOG,
    LogVersions,
    KeyStore,
    DataKeyRing,
    FactStore,
    SessionStore,
    SearchIndex,
    AccessStore,
    Embedder,
    FactStoreVersions,
    SessionStoreVersions,
    SearchIndexVersions,
    RebuildLedger,
  ],
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
