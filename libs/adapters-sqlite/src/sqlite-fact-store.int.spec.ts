import { makeTempDir, testFactStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteFactStore } from './sqlite-fact-store.adapter';

const dir = makeTempDir('engram-facts-');
const db = openSqliteDatabase(dir.file('engram.db'));

testFactStore(async () => new SqliteFactStore(db), {
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
