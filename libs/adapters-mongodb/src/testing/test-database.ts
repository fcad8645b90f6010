import { uniqueSuffix } from '@engram/testing';
import { type Db, MongoClient } from 'mongodb';

/**
 * One fresh database per spec file on the server at MONGODB_URI (FerretDB from
 * `deploy/local/ferretdb.sh start` by default), dropped after the file's tests.
 * Call at the top level of a spec file; returns a lazy opener.
 */
export function useTestDatabase(kind: string): () => Promise<Db> {
  const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/';
  let client: MongoClient | undefined;
  let db: Db | undefined;
  afterAll(async () => {
    try {
      await db?.dropDatabase();
    } finally {
      await client?.close();
    }
  });
  return async () => {
    // Command monitoring on, so a spec can count the commands a call sends (`db.client.on('commandStarted')`).
    client ??= await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000, monitorCommands: true });
    db ??= client.db(`engram_test_${kind}_${uniqueSuffix()}`);
    return db;
  };
}
