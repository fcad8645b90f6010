import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openSqliteDatabase, SqliteKeyStore } from '@engram/adapters-sqlite';
import { loadConfig } from '@engram/config';
import { MasterKey, parseMasterKey } from '@engram/domain';
import { rotationKeys } from '@engram/services';
import { buildCli } from '../../apps/engram/cli/engram-cli';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/*
 * `engram rotate-master-key` (docs/security.md, "Rotating the master key"), embedded: every data
 * key is rewrapped under the new master key — from master.key to a new master.key, or from
 * ENGRAM_PREVIOUS_MASTER_KEY to ENGRAM_MASTER_KEY — and engram reads every user's events after it,
 * also after a rotation interrupted half-way and run again.
 */
jest.setTimeout(120_000);

const modules = {
  server: (config: ReturnType<typeof loadConfig>) => EngramModule.forRoot({ config }),
  rebuild: (config: ReturnType<typeof loadConfig>) => EngramModule.forMaintenance({ config }),
};

/** Runs the command line in-process with `env` as the environment; its JSON output line. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<Record<string, unknown>> {
  const saved = { ...process.env };
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  Object.assign(process.env, { LOG_LEVEL: 'silent', ...env });
  try {
    await buildCli(modules)
      .exitOverride()
      .parseAsync(['node', 'engram', ...args]);
    return JSON.parse(String(log.mock.calls[0][0])) as Record<string, unknown>;
  } finally {
    process.env = saved;
    log.mockRestore();
    error.mockRestore();
  }
}

/** The master-key fingerprints the data_keys rows carry, with their counts. */
function wrappers(dataDir: string): Record<string, number> {
  const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
  try {
    const rows = db.prepare('SELECT master, COUNT(*) AS n FROM data_keys GROUP BY master').all() as { master: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.master, r.n]));
  } finally {
    db.close();
  }
}

const keyOfFile = (file: string) => new MasterKey(parseMasterKey(fs.readFileSync(file, 'utf8'))!);

describe('engram rotate-master-key (embedded)', () => {
  let engram: EngramHarness | undefined;
  afterEach(async () => {
    await engram?.destroy();
    engram = undefined;
  });

  async function remember(): Promise<void> {
    for (const user of ['ada', 'lin', 'mei']) {
      const { body } = await engram!
        .http()
        .post('/v1/turns')
        .send(turnsBody(user, 's1', [{ turnId: 't1', text: `My cat is called Pumpernickel-${user}.` }]))
        .expect(202);
      await engram!.http().post('/v1/recall').send({ userId: user, query: 'cat', after: body.position }).expect(200);
    }
  }

  /** After a restart, every user's words come back from the log: an offline rebuild opens every event with the rotated keys. */
  async function everyUserReadable(env: Record<string, string> = {}): Promise<void> {
    const dataDir = engram!.dataDir;
    await engram!.stop();
    await cli({ ENGRAM_DATA_DIR: dataDir, ...env }, 'rebuild');
    engram = await startEngram({ dataDir, env });
    for (const user of ['ada', 'lin', 'mei']) {
      const { body } = await engram.http().post('/v1/recall').send({ userId: user, query: 'cat Pumpernickel' }).expect(200);
      expect(JSON.stringify(body)).toContain(`Pumpernickel-${user}`);
    }
  }

  it('rotates master.key: a new key wraps every data key, master.key is replaced, the data reads as before', async () => {
    engram = await startEngram();
    await remember();
    const dataDir = engram.dataDir;
    const old = keyOfFile(path.join(dataDir, 'master.key'));
    expect(wrappers(dataDir)).toEqual({ [old.fingerprint]: 3 });

    // Refused while a server runs on the data directory: it holds the old key only.
    fs.writeFileSync(path.join(dataDir, 'engram.server.json'), JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:1' }));
    await expect(cli({ ENGRAM_DATA_DIR: dataDir }, 'rotate-master-key')).rejects.toThrow(/stop it before rotating master\.key/);
    fs.rmSync(path.join(dataDir, 'engram.server.json'));

    await engram.stop();
    const result = await cli({ ENGRAM_DATA_DIR: dataDir }, 'rotate-master-key', '--json');
    const rotated = keyOfFile(path.join(dataDir, 'master.key'));
    expect(rotated.fingerprint).not.toBe(old.fingerprint);
    expect(result).toEqual({ rewrapped: 3, total: 3, masterKey: rotated.fingerprint });
    expect(fs.existsSync(path.join(dataDir, 'master.key.next'))).toBe(false);
    expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(wrappers(dataDir)).toEqual({ [rotated.fingerprint]: 3 });

    engram = await startEngram({ dataDir });
    await everyUserReadable();
    // Each run on master.key is a rotation of its own: to a newer key again.
    await engram.stop();
    const again = await cli({ ENGRAM_DATA_DIR: dataDir }, 'rotate-master-key', '--json');
    expect(again).toEqual({ rewrapped: 3, total: 3, masterKey: keyOfFile(path.join(dataDir, 'master.key')).fingerprint });
    expect(again.masterKey).not.toBe(rotated.fingerprint);
  });

  it('resumes an interrupted rotation of master.key: engram reads keys under either meanwhile, a rerun finishes', async () => {
    engram = await startEngram();
    await remember();
    const dataDir = engram.dataDir;
    await engram.stop();
    const config = loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });

    // What a rotation killed after its first key leaves: master.key.next, one key rewrapped with it.
    const keys = rotationKeys(config);
    const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    const store = new SqliteKeyStore(db, keys.current, keys.previous);
    await expect(
      store.rewrapAll({
        batchSize: 1,
        onProgress: () => {
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    db.close();
    expect(Object.values(wrappers(dataDir)).sort()).toEqual([1, 2]);

    engram = await startEngram({ dataDir });
    await everyUserReadable();
    await engram.stop();

    const result = await cli({ ENGRAM_DATA_DIR: dataDir }, 'rotate-master-key', '--json');
    expect(result).toEqual({ rewrapped: 2, total: 2, masterKey: keys.current.fingerprint });
    expect(keyOfFile(path.join(dataDir, 'master.key')).fingerprint).toBe(keys.current.fingerprint);
    expect(wrappers(dataDir)).toEqual({ [keys.current.fingerprint]: 3 });
    engram = await startEngram({ dataDir });
    await everyUserReadable();
  });

  it('rotates from ENGRAM_PREVIOUS_MASTER_KEY to ENGRAM_MASTER_KEY; without the old key it refuses, naming the variable', async () => {
    const oldKey = randomBytes(32).toString('hex');
    const newKey = randomBytes(32).toString('base64');
    engram = await startEngram({ env: { ENGRAM_MASTER_KEY: oldKey } });
    await remember();
    const dataDir = engram.dataDir;
    await engram.stop();

    await expect(cli({ ENGRAM_DATA_DIR: dataDir, ENGRAM_MASTER_KEY: newKey }, 'rotate-master-key')).rejects.toThrow(
      /ENGRAM_PREVIOUS_MASTER_KEY/,
    );
    const during = { ENGRAM_MASTER_KEY: newKey, ENGRAM_PREVIOUS_MASTER_KEY: oldKey };
    // Started with both before the rotation: reads the old keys, wraps a new user's under the new one.
    engram = await startEngram({ dataDir, env: during });
    await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody('zoe', 's1', [{ turnId: 't1', text: 'My cat is called Pumpernickel-zoe.' }]))
      .expect(202);
    await engram.stop();

    const result = await cli({ ENGRAM_DATA_DIR: dataDir, ...during }, 'rotate-master-key', '--json');
    const current = new MasterKey(parseMasterKey(newKey)!);
    expect(result).toEqual({ rewrapped: 3, total: 3, masterKey: current.fingerprint });
    expect(wrappers(dataDir)).toEqual({ [current.fingerprint]: 4 });
    engram = await startEngram({ dataDir, env: { ENGRAM_MASTER_KEY: newKey } });
    await everyUserReadable({ ENGRAM_MASTER_KEY: newKey });
  });
});
