import type { INestApplicationContext, Type } from '@nestjs/common';
import type { Db } from 'mongodb';
import type { Database } from 'better-sqlite3';
import type { EngramConfig } from '@engram/config';
import { SqliteKeyStore } from '@engram/adapters-sqlite';
import { MongoKeyStore } from '@engram/adapters-mongodb';
import type { KeyStore } from '@engram/ports';
import type { MasterKeys } from '../crypto/master-key';
import { DistributedBindingsModule, MONGO_DATABASE } from './distributed-bindings.module';
import { EmbeddedBindingsModule, SQLITE_DATABASE } from './embedded-bindings.module';

export { DistributedBindingsModule } from './distributed-bindings.module';

/**
 * Which adapters a process binds is the only difference between modes.
 * Embedded processes may also run as separate apps sharing one data directory
 * (SQLite in WAL mode serves several processes); distributed ones share
 * Kafka, MongoDB and Elasticsearch.
 */
export function bindingsFor(config: EngramConfig): Type<unknown> {
  switch (config.ENGRAM_MODE) {
    case 'embedded':
      return EmbeddedBindingsModule;
    case 'distributed':
      return DistributedBindingsModule;
  }
}

/** A key store over the app's storage opened with other master keys than configured: a rotation's. */
export function keyStoreWith(app: INestApplicationContext, config: EngramConfig, keys: MasterKeys): KeyStore {
  switch (config.ENGRAM_MODE) {
    case 'embedded':
      return new SqliteKeyStore(app.get<Database>(SQLITE_DATABASE), keys.current, keys.previous);
    case 'distributed':
      return new MongoKeyStore(app.get<Db>(MONGO_DATABASE), keys.current, keys.previous);
  }
}
