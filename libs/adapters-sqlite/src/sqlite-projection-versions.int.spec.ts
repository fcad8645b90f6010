import { followActiveVersion, type ProjectionVersions } from '@engram/ports';
import {
  factStoreProbe,
  makeTempDir,
  searchIndexProbe,
  sessionStoreProbe,
  testProjectionVersions,
  type VersionedBackend,
} from '@engram/testing';
import { openSqliteDatabase, type Database } from './sqlite-database';
import { SqliteFactStore } from './sqlite-fact-store.adapter';
import { sqliteFactStoreVersions, sqliteSearchIndexVersions, sqliteSessionStoreVersions } from './sqlite-projection-versions';
import { SqliteSearchIndex } from './sqlite-search-index.adapter';
import { SqliteSessionStore } from './sqlite-session-store.adapter';

/** A fresh SQLite file per test; "another process" is a second connection to it. */
function backend<S extends object>(versionsOf: (db: Database) => ProjectionVersions<S>, legacyOf: (db: Database) => S) {
  return async (): Promise<VersionedBackend<S>> => {
    const dir = makeTempDir('engram-versions-');
    const connections: Database[] = [];
    const connect = () => {
      const db = openSqliteDatabase(dir.file('engram.db'));
      connections.push(db);
      return db;
    };
    const db = connect();
    // The legacy store is created first, as a data directory from before versioning would be.
    const legacy = legacyOf(db);
    const versions = versionsOf(db);
    return {
      versions,
      live: followActiveVersion(versions),
      legacy,
      reopen: async () => {
        const other = versionsOf(connect());
        return { versions: other, live: followActiveVersion(other) };
      },
      close: async () => {
        for (const c of connections) c.close();
        dir.remove();
      },
    };
  };
}

testProjectionVersions(
  'SQLite facts',
  factStoreProbe,
  backend(sqliteFactStoreVersions, (db) => new SqliteFactStore(db)),
);
testProjectionVersions(
  'SQLite sessions',
  sessionStoreProbe,
  backend(sqliteSessionStoreVersions, (db) => new SqliteSessionStore(db)),
);
testProjectionVersions(
  'SQLite search',
  searchIndexProbe,
  backend(
    (db) => sqliteSearchIndexVersions(db),
    (db) => new SqliteSearchIndex(db),
  ),
);
