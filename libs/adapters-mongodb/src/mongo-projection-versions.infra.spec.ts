import { followActiveVersion, type ProjectionVersions } from '@engram/ports';
import { factStoreProbe, sessionStoreProbe, testProjectionVersions, uniqueSuffix, type VersionedBackend } from '@engram/testing';
import { type Db, MongoClient } from 'mongodb';
import { MongoFactStore } from './mongo-fact-store.adapter';
import { mongoFactStoreVersions, mongoSessionStoreVersions } from './mongo-projection-versions';
import { MongoSessionStore } from './mongo-session-store.adapter';

const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/';

/** A fresh database per test (dropped after it); "another process" is a second client with its own pointer cache. */
function backend<S extends object>(versionsOf: (db: Db) => ProjectionVersions<S>, legacyOf: (db: Db) => Promise<S>) {
  return async (): Promise<VersionedBackend<S>> => {
    const name = `engram_test_versions_${uniqueSuffix()}`;
    const clients = [await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 })];
    const db = clients[0].db(name);
    const legacy = await legacyOf(db);
    const versions = versionsOf(db);
    return {
      versions,
      // As bound in distributed mode: the pointer cached for a second.
      live: followActiveVersion(versions, { maxAgeMs: 1000 }),
      legacy,
      reopen: async () => {
        const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
        clients.push(client);
        const other = versionsOf(client.db(name));
        return { versions: other, live: followActiveVersion(other, { maxAgeMs: 1000 }) };
      },
      close: async () => {
        try {
          await db.dropDatabase();
        } finally {
          for (const client of clients) await client.close();
        }
      },
    };
  };
}

testProjectionVersions(
  'MongoDB facts',
  factStoreProbe,
  backend(mongoFactStoreVersions, (db) => MongoFactStore.open(db)),
);
testProjectionVersions(
  'MongoDB sessions',
  sessionStoreProbe,
  backend(mongoSessionStoreVersions, (db) => MongoSessionStore.open(db)),
);
