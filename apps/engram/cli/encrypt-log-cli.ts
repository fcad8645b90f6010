import type { Command } from 'commander';
import { loadConfig } from '@engram/config';
import { deployedTopic, Topics, versionedTopic } from '@engram/contracts';
import { startApp } from '@engram/services/bootstrap';
import { LogEncryptor } from '@engram/services/crypto/encrypt-log';
import type { CliModules } from './cli-modules';
import { PhaseBars } from './phase-bars';

/**
 * `engram encrypt-log`: seals a log written before crypto-shredding into a new version of its
 * topics and switches to it (docs/security.md, "Sealing a log from before"); `--abort` gives up
 * an interrupted run that has not switched.
 */
export function registerEncryptLogCommand(program: Command, modules: CliModules): void {
  program
    .command('encrypt-log')
    .description(
      'seal every plaintext event of the log into a new version of its topics, switch to it and delete the old ones (stop engram first)',
    )
    .option('--abort', 'give up an interrupted run that has not switched: delete its copies, the log stays as it was')
    .option('--json', 'print only the result as JSON')
    .action(async (options: { abort?: boolean; json?: boolean }) => {
      const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
      const app = await startApp(modules.rebuild(config), { http: false, stages: false });
      const bars = new PhaseBars();
      try {
        const encryptor = app.get(LogEncryptor);
        if (options.abort) {
          const aborted = await encryptor.abort();
          console.log(JSON.stringify({ aborted }));
          return;
        }
        const result = await encryptor.run({ onProgress: (p) => bars.update(p) });
        bars.stop();
        console.log(JSON.stringify(result));
        if (options.json) return;
        if (!result.switched) {
          console.error(`every payload of the log (version ${result.from}) is sealed already: nothing to do.`);
          return;
        }
        const sum = (field: 'messages' | 'sealed' | 'shredded' | 'unattributed') => result.topics.reduce((n, t) => n + t[field], 0);
        console.error(
          `the log is at version ${result.to}: ${sum('sealed')} payloads sealed, ${sum('shredded')} of forgotten users kept as envelopes only, ` +
            `${sum('messages')} messages in ${result.topics.length} topics; the old topics are deleted.`,
        );
        if (sum('unattributed') > 0) {
          console.error(
            `warning: ${sum('unattributed')} messages are no event of any user (not JSON, or no tenant and user): copied as they were; see engram dlq list.`,
          );
        }
        if (result.leftOver.length > 0) console.error(`warning: left in place (not copied, not empty): ${result.leftOver.join(', ')}`);
        console.error(
          `producers writing straight to Kafka write to ${versionedTopic(deployedTopic(config.ENGRAM_TOPIC_PREFIX, Topics.turns), result.to)} now (KafkaTurnProducer: logVersion ${result.to}).`,
        );
      } finally {
        bars.stop();
        await app.close();
      }
    });
}
