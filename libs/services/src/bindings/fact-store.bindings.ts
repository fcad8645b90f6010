import type { FactoryProvider } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import type { Db } from 'mongodb';
import { FactStoreBackend, MasterKeyOptions, PipelineOptions } from '@engram/config';
import {
  SqliteAccessStore,
  SqliteKeyStore,
  SqliteLogVersions,
  SqliteRebuildLedger,
  sqliteFactStoreVersions,
  sqliteSessionStoreVersions,
  SqliteWebhookStore,
} from '@engram/adapters-sqlite';
import {
  MongoAccessStore,
  MongoKeyStore,
  MongoLogVersions,
  MongoRebuildLedger,
  mongoFactStoreVersions,
  mongoSessionStoreVersions,
  MongoWebhookStore,
  withMongoOutages,
} from '@engram/adapters-mongodb';
import {
  AccessStore,
  FactStore,
  FactStoreVersions,
  followActiveVersion,
  KeyStore,
  LogVersions,
  ProjectionVersions,
  RebuildLedger,
  SessionStore,
  SessionStoreVersions,
  WebhookStore,
} from '@engram/ports';
import { DataKeyRing, loadMasterKeys } from '../crypto';
import { DependencyMonitor } from '../observability/dependency-monitor';
import { MONGO_DATABASE, SQLITE_DATABASE } from './databases';

/**
 * The fact store port (ENGRAM_FACT_STORE) and what lives in the same database: sessions, access
 * statistics, webhooks, the data keys, the projection versions and rebuild ledger, and the log's version.
 * One choice for all of them because they are one database (port-bindings.ts says why).
 */
export function factStoreProviders(backend: FactStoreBackend): FactoryProvider[] {
  return [...(backend === 'sqlite' ? sqliteStores : mongoStores), dataKeyRing];
}

const dataKeyRing: FactoryProvider = { provide: DataKeyRing, inject: [KeyStore], useFactory: (store: KeyStore) => new DataKeyRing(store) };

/** Tables per version (`facts`, `v2_facts`, …) behind a pointer row that the live stores read on every call (other processes on the file see a swap at once). */
const sqliteStores: FactoryProvider[] = [
  // Data keys wrapped by ENGRAM_MASTER_KEY or the data directory's master.key (and, during a
  // rotation, still read under ENGRAM_PREVIOUS_MASTER_KEY or master.key.next).
  {
    provide: KeyStore,
    inject: [SQLITE_DATABASE, MasterKeyOptions],
    useFactory: (db: Database, options: MasterKeyOptions) => {
      const { current, previous } = loadMasterKeys(options);
      return new SqliteKeyStore(db, current, previous);
    },
  },
  // Which version of the topics the log is at (`engram encrypt-log` moves it).
  { provide: LogVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteLogVersions(db) },
  { provide: FactStoreVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteFactStoreVersions(db) },
  { provide: SessionStoreVersions, inject: [SQLITE_DATABASE], useFactory: (db: Database) => sqliteSessionStoreVersions(db) },
  { provide: RebuildLedger, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteRebuildLedger(db) },
  { provide: FactStore, inject: [FactStoreVersions], useFactory: (v: ProjectionVersions<FactStore>) => followActiveVersion(v) },
  { provide: SessionStore, inject: [SessionStoreVersions], useFactory: (v: ProjectionVersions<SessionStore>) => followActiveVersion(v) },
  { provide: AccessStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteAccessStore(db) },
  { provide: WebhookStore, inject: [SQLITE_DATABASE], useFactory: (db: Database) => new SqliteWebhookStore(db) },
];

/**
 * Collections per version (`facts`, `facts_v2`, …) behind a pointer document, cached by each process
 * for ENGRAM_PROJECTION_POINTER_TTL_MS (online rebuilds keep applying the overlap longer). Collections
 * and indexes exist before the process reports healthy.
 */
const mongoStores: FactoryProvider[] = [
  // Data keys in `data_keys`, wrapped by ENGRAM_MASTER_KEY (required with MongoDB; during a rotation,
  // keys still under ENGRAM_PREVIOUS_MASTER_KEY are read too).
  {
    provide: KeyStore,
    inject: [MONGO_DATABASE, MasterKeyOptions, DependencyMonitor],
    useFactory: (db: Db, options: MasterKeyOptions, monitor: DependencyMonitor) => {
      const { current, previous } = loadMasterKeys(options);
      return withMongoOutages(new MongoKeyStore(db, current, previous), monitor);
    },
  },
  // Which version of the topics the log is at (`engram encrypt-log` moves it), in `log_versions`.
  mongo(LogVersions, (db) => new MongoLogVersions(db)),
  mongo(FactStoreVersions, (db) => mongoFactStoreVersions(db)),
  mongo(SessionStoreVersions, (db) => mongoSessionStoreVersions(db)),
  mongo(RebuildLedger, (db) => new MongoRebuildLedger(db)),
  {
    provide: FactStore,
    inject: [FactStoreVersions, PipelineOptions, DependencyMonitor],
    useFactory: async (versions: ProjectionVersions<FactStore>, pipeline: PipelineOptions, monitor: DependencyMonitor) => {
      await versions.open(await versions.active());
      return withMongoOutages(followActiveVersion(versions, { maxAgeMs: pipeline.projectionPointerTtlMs }), monitor);
    },
  },
  {
    provide: SessionStore,
    inject: [SessionStoreVersions, PipelineOptions, DependencyMonitor],
    useFactory: async (versions: ProjectionVersions<SessionStore>, pipeline: PipelineOptions, monitor: DependencyMonitor) => {
      await versions.open(await versions.active());
      return withMongoOutages(followActiveVersion(versions, { maxAgeMs: pipeline.projectionPointerTtlMs }), monitor);
    },
  },
  mongo(AccessStore, (db) => MongoAccessStore.open(db)),
  mongo(WebhookStore, (db) => MongoWebhookStore.open(db)),
];

/**
 * A port bound to a MongoDB store whose server's outages are `DependencyUnavailableError('mongodb')`
 * (stages pause on them, HTTP answers 503 naming it), told to the dependency monitor.
 */
function mongo<T extends object>(provide: symbol, open: (db: Db) => T | Promise<T>): FactoryProvider {
  return {
    provide,
    inject: [MONGO_DATABASE, DependencyMonitor],
    useFactory: async (db: Db, monitor: DependencyMonitor) => withMongoOutages(await open(db), monitor),
  };
}
