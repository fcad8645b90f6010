import * as fs from 'node:fs';
import { MasterKey } from '@engram/domain';
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

describe('SqliteKeyStore: the key it unwrapped, kept beside its row', () => {
  const own = makeTempDir('engram-keys-kept-');
  const shared = openSqliteDatabase(own.file('engram.db'));
  const master = MasterKey.generate();
  // Two stores on one file: this process's, and another process's.
  const mine = new SqliteKeyStore(shared, master);
  const theirs = new SqliteKeyStore(shared, master);

  afterAll(() => {
    shared.close();
    own.remove();
  });

  it('hands out the same key again while its row is unchanged', async () => {
    const created = await mine.getOrCreate('acme', 'ada');
    expect(await mine.get('acme', 'ada')).toBe(created);
  });

  it('never hands out a key another process destroyed, nor the old one after it made a new key', async () => {
    const first = await mine.getOrCreate('acme', 'grace');
    await theirs.destroy('acme', 'grace');
    expect(await mine.get('acme', 'grace')).toBeUndefined();

    await mine.getOrCreate('acme', 'linus');
    await theirs.destroy('acme', 'linus');
    const renewed = await theirs.getOrCreate('acme', 'linus');
    const read = await mine.get('acme', 'linus');
    expect(read?.keyId).toBe(renewed.keyId);
    expect(read?.key.equals(renewed.key)).toBe(true);
    expect(read?.key.equals(first.key)).toBe(false);
  });

  it('reads a key again once it was rewrapped under a new master key', async () => {
    const created = await mine.getOrCreate('acme', 'barbara');
    const next = MasterKey.generate();
    await new SqliteKeyStore(shared, next, [master]).rewrapAll();
    await expect(mine.get('acme', 'barbara')).rejects.toThrow(/ENGRAM_MASTER_KEY/);
    expect((await new SqliteKeyStore(shared, next).get('acme', 'barbara'))?.key.equals(created.key)).toBe(true);
  });
});
