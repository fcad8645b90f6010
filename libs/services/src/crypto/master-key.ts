import * as fs from 'node:fs';
import * as path from 'node:path';
import { bindingReason, portBindingsFrom, type MasterKeyOptions } from '@engram/config';
import { MasterKey, parseMasterKey } from '@engram/domain';

export const MASTER_KEY_FILE = 'master.key';
/** The key an embedded rotation of master.key wraps with, until it replaces master.key (see `rotationKeys`). */
export const NEXT_MASTER_KEY_FILE = 'master.key.next';

/** The key that wraps data keys, and the ones that only unwrap those still under them (a rotation). */
export interface MasterKeys {
  readonly current: MasterKey;
  readonly previous: readonly MasterKey[];
}

/**
 * The master key that wraps every data key: ENGRAM_MASTER_KEY when set (configuration has
 * validated it, and requires it when the data keys are in MongoDB); in SQLite without it, the key generated into
 * the data directory on first start (0600, created exclusively so two processes starting at once
 * agree) and read from there after.
 */
export function loadMasterKey(config: MasterKeyOptions): MasterKey {
  if (config.ENGRAM_MASTER_KEY !== undefined) return new MasterKey(parseMasterKey(config.ENGRAM_MASTER_KEY)!);
  if (portBindingsFrom(config).factStore === 'mongodb')
    throw new Error(`ENGRAM_MASTER_KEY: required when ${bindingReason(config, 'factStore')}`);
  const file = path.join(config.ENGRAM_DATA_DIR, MASTER_KEY_FILE);
  try {
    fs.writeFileSync(file, `${MasterKey.generate().encoded()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKeyFile(file, 'restore it, or set ENGRAM_MASTER_KEY')!;
}

/**
 * What a key store is opened with: the master key, and the keys that may still wrap some data
 * keys during a rotation — ENGRAM_PREVIOUS_MASTER_KEY, and (embedded, with the key in
 * master.key) master.key.next when a rotation of the file was interrupted.
 */
export function loadMasterKeys(config: MasterKeyOptions): MasterKeys {
  const current = loadMasterKey(config);
  const previous: MasterKey[] = [];
  if (config.ENGRAM_PREVIOUS_MASTER_KEY !== undefined) previous.push(new MasterKey(parseMasterKey(config.ENGRAM_PREVIOUS_MASTER_KEY)!));
  if (usesKeyFile(config)) {
    const next = readKeyFile(
      path.join(config.ENGRAM_DATA_DIR, NEXT_MASTER_KEY_FILE),
      'delete it only if no data key was rewrapped with it',
    );
    if (next) previous.push(next);
  }
  return {
    current,
    previous: previous.filter(
      (key, i) => key.fingerprint !== current.fingerprint && previous.findIndex((k) => k.fingerprint === key.fingerprint) === i,
    ),
  };
}

/** Data keys in SQLite (the embedded preset) without ENGRAM_MASTER_KEY: the master key lives in ENGRAM_DATA_DIR/master.key. */
export function usesKeyFile(config: MasterKeyOptions): boolean {
  return portBindingsFrom(config).factStore === 'sqlite' && config.ENGRAM_MASTER_KEY === undefined;
}

/**
 * The keys `engram rotate-master-key` rewraps with and from. With ENGRAM_MASTER_KEY set: that key,
 * from ENGRAM_PREVIOUS_MASTER_KEY. With the key in master.key: a new key, written to
 * master.key.next (0600) on the first run and reused by a rerun after an interruption, from
 * master.key; `finishKeyFileRotation` then puts it in master.key's place.
 */
export function rotationKeys(config: MasterKeyOptions): MasterKeys {
  if (!usesKeyFile(config)) return loadMasterKeys(config);
  const file = path.join(config.ENGRAM_DATA_DIR, MASTER_KEY_FILE);
  if (!fs.existsSync(file)) throw new Error(`${file}: no master key to rotate (engram has not started on this data directory yet)`);
  const old = loadMasterKey(config);
  const nextFile = path.join(config.ENGRAM_DATA_DIR, NEXT_MASTER_KEY_FILE);
  try {
    fs.writeFileSync(nextFile, `${MasterKey.generate().encoded()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const next = readKeyFile(nextFile, 'delete it only if no data key was rewrapped with it')!;
  const previous = [old];
  if (config.ENGRAM_PREVIOUS_MASTER_KEY !== undefined) previous.push(new MasterKey(parseMasterKey(config.ENGRAM_PREVIOUS_MASTER_KEY)!));
  return { current: next, previous };
}

/** master.key.next becomes master.key, in one rename: every data key is wrapped by it now. */
export function finishKeyFileRotation(config: MasterKeyOptions): void {
  fs.renameSync(path.join(config.ENGRAM_DATA_DIR, NEXT_MASTER_KEY_FILE), path.join(config.ENGRAM_DATA_DIR, MASTER_KEY_FILE));
}

function readKeyFile(file: string, advice: string): MasterKey | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const bytes = parseMasterKey(text);
  if (!bytes) throw new Error(`${file}: not a master key (32 bytes, hex or base64); ${advice}`);
  return new MasterKey(bytes);
}
