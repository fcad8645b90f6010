import { makeTempDir, testAccessStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteAccessStore } from './sqlite-access-store.adapter';

const dir = makeTempDir('engram-access-');
const db = openSqliteDatabase(dir.file('engram.db'));

testAccessStore(async () => new SqliteAccessStore(db), {
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
