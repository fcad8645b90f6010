import { makeTempDir, testLogVersions } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteLogVersions } from './sqlite-log-versions';

const dir = makeTempDir('engram-log-versions-');
const db = openSqliteDatabase(dir.file('engram.db'));

testLogVersions({
  open: async () => new SqliteLogVersions(db),
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
