import { HttpException } from '@nestjs/common';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '@engram/config';
import { MemoryControlService } from '../users/memory-control.service';
import { DEFAULT_TENANT } from '../http/tenancy';
import type { CliModules } from './cli-modules';
import { remoteOf, RemoteOptions, withEmbedded } from './export-import';

/**
 * `engram retract`, `engram revert` and `engram profile`: the HTTP per-memory commands from the
 * command line, through a running server when there is one (`--url`, or the one announced in the
 * data directory), else through an embedded one on the data directory. Either way they are
 * commands to the resolver, and the answer comes once recall sees the decision.
 */
export function registerMemoryControlCommands(program: Command, modules: CliModules): Command {
  const cliConfig = () => loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const users = (userId: string) => `/v1/users/${encodeURIComponent(userId)}`;

  /** Remote or embedded; an HTTP error (404 unknown memory…) becomes the command's error, naming the field. */
  async function run(
    options: RemoteOptions,
    remoteCall: (remote: NonNullable<ReturnType<typeof remoteOf>>) => Promise<unknown>,
    local: (service: MemoryControlService) => Promise<unknown>,
  ) {
    const config = cliConfig();
    const remote = remoteOf(options, config.ENGRAM_DATA_DIR);
    const result = remote
      ? await remoteCall(remote)
      : await withEmbedded(modules.server(config), true, async (app) => {
          try {
            return await local(app.get(MemoryControlService));
          } catch (error) {
            if (!(error instanceof HttpException)) throw error;
            const body = error.getResponse() as { message?: string[]; fields?: string[] };
            throw new Error(`${error.getStatus()}: ${(body.message ?? [error.message]).join('; ')} (${(body.fields ?? []).join(', ')})`, {
              cause: error,
            });
          }
        });
    console.log(JSON.stringify(result, null, 2));
  }

  program
    .command('retract <userId> <memoryId>')
    .description('retract one memory (kept, listed with ?status=all, no longer recalled); waits until recall sees it')
    .requiredOption('--reason <text>', 'why: kept on the memory as statusReason')
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, memoryId: string, options: RemoteOptions & { reason: string }) =>
      run(
        options,
        (remote) => remote('DELETE', `${users(userId)}/memories/${encodeURIComponent(memoryId)}`, { reason: options.reason }),
        (service) => service.retract(DEFAULT_TENANT, userId, memoryId, options.reason),
      ),
    );

  program
    .command('revert <userId> <memoryId>')
    .description('restore an earlier value of one memory as a new version (or a retracted memory, at its current version)')
    .requiredOption('--version <n>', 'the version to bring back', positiveInteger)
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, memoryId: string, options: RemoteOptions & { version: number }) =>
      run(
        options,
        (remote) => remote('POST', `${users(userId)}/memories/${encodeURIComponent(memoryId)}/revert`, { version: options.version }),
        (service) => service.revert(DEFAULT_TENANT, userId, memoryId, options.version),
      ),
    );

  program
    .command('profile <userId> <attribute=value...>')
    .description('state profile facts the application knows for certain (pinned; a new value supersedes the old one)')
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action((userId: string, pairs: string[], options: RemoteOptions) => {
      const attributes = Object.fromEntries(pairs.map(attributePair));
      return run(
        options,
        (remote) => remote('PUT', `${users(userId)}/profile`, { attributes }),
        (service) => service.saveProfile(DEFAULT_TENANT, userId, attributes),
      );
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
