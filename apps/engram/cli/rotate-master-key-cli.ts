import type { Command } from 'commander';
import { loadConfig } from '@engram/config';
import { startApp } from '@engram/services/bootstrap';
import { keyStoreWith } from '@engram/services/bindings/bindings';
import { finishKeyFileRotation, rotationKeys, usesKeyFile } from '@engram/services/crypto';
import type { CliModules } from './cli-modules';
import { PhaseBars } from './phase-bars';
import { runningServer } from '@engram/services/observability/server-file';

/**
 * `engram rotate-master-key`: every data key rewrapped under the new master key (docs/security.md,
 * "Rotating the master key"). ENGRAM_MASTER_KEY set: to it, from ENGRAM_PREVIOUS_MASTER_KEY.
 * Embedded with the key in master.key: to a new key (master.key.next until done, then master.key).
 * Resumable: each data key records which master key wrapped it, and a rerun rewraps only the rest.
 */
export function registerRotateMasterKeyCommand(program: Command, modules: CliModules): void {
  program
    .command('rotate-master-key')
    .description(
      'rewrap every data key under a new master key: ENGRAM_MASTER_KEY (new) from ENGRAM_PREVIOUS_MASTER_KEY (old); embedded without them, a new master.key',
    )
    .option('--json', 'print only the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
      const server = usesKeyFile(config) ? runningServer(config.ENGRAM_DATA_DIR) : null;
      if (server) {
        // It holds the key it started with and would not read data keys wrapped by the new one.
        throw new Error(`an engram server (pid ${server.pid}) is using ${config.ENGRAM_DATA_DIR}: stop it before rotating master.key`);
      }
      const keys = rotationKeys(config);
      const app = await startApp(modules.rebuild(config), { http: false, stages: false });
      const bars = new PhaseBars('keys');
      try {
        const result = await keyStoreWith(app, config, keys).rewrapAll({
          onProgress: (done, total) => bars.update({ phase: 'rewrapping', done, total }),
        });
        bars.stop();
        if (usesKeyFile(config)) finishKeyFileRotation(config);
        console.log(JSON.stringify({ ...result, masterKey: keys.current.fingerprint }));
        if (!options.json) {
          console.error(
            usesKeyFile(config)
              ? `every data key is wrapped by master key ${keys.current.fingerprint}, now in ${config.ENGRAM_DATA_DIR}/master.key; back it up in place of the old one.`
              : `every data key is wrapped by master key ${keys.current.fingerprint} (ENGRAM_MASTER_KEY): remove ENGRAM_PREVIOUS_MASTER_KEY from every process.`,
          );
        }
      } finally {
        bars.stop();
        await app.close();
      }
    });
}
