import { makeTempDir, testSessionStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteSessionStore } from './sqlite-session-store.adapter';

const dir = makeTempDir('engram-sessions-');
const db = openSqliteDatabase(dir.file('engram.db'));

testSessionStore(async () => new SqliteSessionStore(db), {
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
