import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '@engram/config';
import type { CliModules } from './cli-modules';
import { type RemoteOptions, withClient } from './client/connect';
import type { EngramClient } from './client/engram-client';

/**
 * `engram retract`, `engram revert` and `engram profile`: the HTTP per-memory commands from the
 * command line, through a running server when there is one (`--url`, or the one announced in the
 * data directory), else through an embedded one on the data directory. Either way they are
 * commands to the resolver, and the answer comes once recall sees the decision.
 */
export function registerMemoryControlCommands(program: Command, modules: CliModules): Command {
  const cliConfig = () => loadConfig({ LOG_LEVEL: 'warn', ...process.env });

  /** Remote or embedded; an HTTP error (404 unknown memory…) becomes the command's error, naming the field. */
  async function run(options: RemoteOptions, command: (engram: EngramClient) => Promise<unknown>) {
    const config = cliConfig();
    const result = await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: true }, command);
    console.log(JSON.stringify(result, null, 2));
  }

  program
    .command('retract <userId> <memoryId>')
    .description('retract one memory (kept, listed with ?status=all, no longer recalled); waits until recall sees it')
    .requiredOption('--reason <text>', 'why: kept on the memory as statusReason')
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, memoryId: string, options: RemoteOptions & { reason: string }) =>
      run(options, (engram) => engram.retract(userId, memoryId, options.reason)),
    );

  program
    .command('revert <userId> <memoryId>')
    .description('restore an earlier value of one memory as a new version (or a retracted memory, at its current version)')
    .requiredOption('--version <n>', 'the version to bring back', positiveInteger)
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, memoryId: string, options: RemoteOptions & { version: number }) =>
      run(options, (engram) => engram.revert(userId, memoryId, options.version)),
    );

  program
    .command('profile <userId> <attribute=value...>')
    .description('state profile facts the application knows for certain (pinned; a new value supersedes the old one)')
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, pairs: string[], options: RemoteOptions) => {
      const attributes = Object.fromEntries(pairs.map(attributePair));
      return run(options, (engram) => engram.saveProfile(userId, attributes));
    });

  return program;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('version must be a positive integer');
  return n;
}

function attributePair(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`"${pair}" is not attribute=value`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}
