import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngramConfig } from '@engram/config';
import { MasterKey, parseMasterKey } from '@engram/domain';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The master key that wraps every data key: ENGRAM_MASTER_KEY when set (configuration has
 * validated it, and requires it when distributed); embedded without it, the key generated into
 * the data directory on first start (0600, created exclusively so two processes starting at once
 * agree) and read from there after.
 */
export function loadMasterKey(config: Pick<EngramConfig, 'ENGRAM_MASTER_KEY' | 'ENGRAM_DATA_DIR' | 'ENGRAM_MODE'>): MasterKey {
  if (config.ENGRAM_MASTER_KEY !== undefined) return new MasterKey(parseMasterKey(config.ENGRAM_MASTER_KEY)!);
  if (config.ENGRAM_MODE === 'distributed') throw new Error('ENGRAM_MASTER_KEY: required when ENGRAM_MODE=distributed');
  const file = path.join(config.ENGRAM_DATA_DIR, MASTER_KEY_FILE);
  try {
    fs.writeFileSync(file, `${MasterKey.generate().encoded()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const bytes = parseMasterKey(fs.readFileSync(file, 'utf8'));
  if (!bytes) throw new Error(`${file}: not a master key (32 bytes, hex or base64); restore it, or set ENGRAM_MASTER_KEY`);
  return new MasterKey(bytes);
}
