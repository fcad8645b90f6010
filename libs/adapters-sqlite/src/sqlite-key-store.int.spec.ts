import * as fs from 'node:fs';
import { makeTempDir, testKeyStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteKeyStore } from './sqlite-key-store.adapter';

const dir = makeTempDir('engram-keys-');
const db = openSqliteDatabase(dir.file('engram.db'));

/** The database file and its write-ahead log, as bytes: what is physically on disk. */
const onDisk = async () =>
  ['engram.db', 'engram.db-wal']
    .filter((name) => fs.existsSync(dir.file(name)))
    .map((name) => fs.readFileSync(dir.file(name)).toString('latin1'))
    .join('\n');

testKeyStore({
  open: async (master, previous) => new SqliteKeyStore(db, master, previous),
  dump: onDisk,
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
