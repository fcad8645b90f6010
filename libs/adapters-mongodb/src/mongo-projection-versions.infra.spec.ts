import { followActiveVersion, type ProjectionVersions } from '@engram/ports';
import { factStoreProbe, sessionStoreProbe, testProjectionVersions, uniqueSuffix, type VersionedBackend } from '@engram/testing';
import { type Db, MongoClient } from 'mongodb';
import { MongoAccessStore } from './mongo-access-store.adapter';
import { MongoFactStore } from './mongo-fact-store.adapter';
import { mongoFactStoreVersions, mongoSessionStoreVersions } from './mongo-projection-versions';
import { MongoSessionStore } from './mongo-session-store.adapter';
import { MongoWebhookStore } from './mongo-webhook-store.adapter';

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

/**
 * deploy/README's start-up starts the six apps together: on a fresh database each opens the active
 * versions of the facts and the sessions (writing the pointer document of each) and the other
 * stores, at once. Every process is its own client, as in production.
 */
describe('MongoDB projection versions: processes started together on a fresh database', () => {
  const processes = 6;

  it(`all ${processes} start, and the pointers say version 1 once`, async () => {
    const name = `engram_test_versions_race_${uniqueSuffix()}`;
    const clients = await Promise.all(
      Array.from({ length: processes }, () => MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 })),
    );
    try {
      const started = await Promise.allSettled(
        clients.map(async (client) => {
          const db = client.db(name);
          // What the distributed bindings do at start (libs/services/src/bindings/fact-store.bindings.ts).
          await Promise.all(
            [mongoFactStoreVersions(db), mongoSessionStoreVersions(db)].map(async (versions: ProjectionVersions<object>) =>
              versions.open(await versions.active()),
            ),
          );
          await Promise.all([MongoAccessStore.open(db), MongoWebhookStore.open(db)]);
        }),
      );
      expect(started.filter((s) => s.status === 'rejected')).toEqual([]);
      const pointers = await clients[0].db(name).collection('projection_versions').find({}).sort({ _id: 1 }).toArray();
      expect(pointers).toEqual([
        { _id: 'facts', active: 1, versions: [1] },
        { _id: 'sessions', active: 1, versions: [1] },
      ]);
    } finally {
      await clients[0].db(name).dropDatabase();
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 60_000);
});
