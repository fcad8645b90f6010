import type { FactoryProvider } from '@nestjs/common';
import * as fs from 'node:fs';
import type { Database } from 'better-sqlite3';
import { MongoClient, type Db } from 'mongodb';
import { MongoOptions, SqliteOptions } from '@engram/config';
import { openSqliteDatabase } from '@engram/adapters-sqlite';
import { EngramMetrics } from '../observability/metrics';

/**
 * The database connections the bindings share: one SQLite file for every port bound to SQLite,
 * one MongoDB client for the fact store's database. Each is opened only when a port uses it.
 */

export const SQLITE_DATABASE = Symbol('SqliteDatabase');
export const MONGO_CLIENT = Symbol('MongoClient');
export const MONGO_DATABASE = Symbol('MongoDatabase');

export const sqliteDatabase: FactoryProvider<Database> = {
  provide: SQLITE_DATABASE,
  inject: [SqliteOptions],
  useFactory: (sqlite: SqliteOptions) => {
    // Only its owner may read the data directory: the log, the projections, the master key.
    fs.mkdirSync(sqlite.dataDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(sqlite.dataDir, 0o700);
    return openSqliteDatabase(sqlite.file);
  },
};

export const mongoDatabase: FactoryProvider[] = [
  {
    provide: MONGO_CLIENT,
    inject: [MongoOptions, EngramMetrics],
    useFactory: async (mongo: MongoOptions, metrics: EngramMetrics): Promise<MongoClient> => {
      try {
        // Every call bounded: a server that refuses or is unreachable fails selection, a hung one the socket timeout.
        const client = new MongoClient(mongo.uri, {
          appName: mongo.appName,
          serverSelectionTimeoutMS: mongo.serverSelectionTimeoutMs,
          connectTimeoutMS: mongo.serverSelectionTimeoutMs,
          socketTimeoutMS: mongo.socketTimeoutMs,
          // Command monitoring: every command sent (find, insert, update, getMore…) counted by name, what the store costs.
          monitorCommands: true,
        });
        client.on('commandStarted', (event) => metrics.countStoreRequest('mongodb', event.commandName));
        return await client.connect();
      } catch (error) {
        // The URI may carry credentials: name the variable, not its value.
        throw new Error(`MongoDB at MONGODB_URI: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },
  },
  {
    provide: MONGO_DATABASE,
    inject: [MONGO_CLIENT, MongoOptions],
    useFactory: (client: MongoClient, mongo: MongoOptions): Db => client.db(mongo.database),
  },
];
