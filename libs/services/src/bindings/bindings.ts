import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import type { Db } from 'mongodb';
import type { Database } from 'better-sqlite3';
import { portBindingsFrom, type EngramConfig } from '@engram/config';
import { SqliteKeyStore } from '@engram/adapters-sqlite';
import { MongoKeyStore } from '@engram/adapters-mongodb';
import type { KeyStore } from '@engram/ports';
import type { MasterKeys } from '../crypto/master-key';
import { MONGO_DATABASE, SQLITE_DATABASE } from './databases';
import { EngramBindingsModule } from './engram-bindings.module';

export { EngramBindingsModule } from './engram-bindings.module';
export { MONGO_CLIENT, MONGO_DATABASE, SQLITE_DATABASE } from './databases';

/**
 * Which adapters a process binds, per port (ENGRAM_EVENT_LOG, ENGRAM_FACT_STORE, ENGRAM_SEARCH;
 * ENGRAM_MODE fills those not set). Processes bound to SQLite may run as separate apps sharing one
 * data directory (SQLite in WAL mode serves several processes); those bound to Kafka, MongoDB and
 * Elasticsearch share them across hosts.
 */
export function bindingsFor(config: EngramConfig): DynamicModule {
  return EngramBindingsModule.forBindings(portBindingsFrom(config));
}

/** A key store over the app's fact-store database opened with other master keys than configured: a rotation's. */
export function keyStoreWith(app: INestApplicationContext, config: EngramConfig, keys: MasterKeys): KeyStore {
  switch (portBindingsFrom(config).factStore) {
    case 'sqlite':
      return new SqliteKeyStore(app.get<Database>(SQLITE_DATABASE), keys.current, keys.previous);
    case 'mongodb':
      return new MongoKeyStore(app.get<Db>(MONGO_DATABASE), keys.current, keys.previous);
  }
}
