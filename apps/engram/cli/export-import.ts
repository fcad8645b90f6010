import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import type { Command } from 'commander';
import * as fs from 'node:fs';
import { loadConfig } from '@engram/config';
import { ExportBundleDto } from '@engram/services/users/export.dto';
import type { CliModules } from './cli-modules';
import { type RemoteOptions, withClient } from './client/connect';

/** `engram export`, `engram import` and `engram forget-expired`. */
export function registerExportImportCommands(program: Command, modules: CliModules): Command {
  const cliConfig = () => loadConfig({ LOG_LEVEL: 'warn', ...process.env });

  program
    .command('export <userId>')
    .description("write a user's memories (every status, with history; masked) as a versioned JSON bundle")
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--url <url>', 'ask a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (userId: string, options: RemoteOptions & { out?: string }) => {
      const config = cliConfig();
      const bundle = await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: false }, (engram) =>
        engram.export(userId),
      );
      const text = `${JSON.stringify(bundle, null, 2)}\n`;
      if (options.out) {
        fs.writeFileSync(options.out, text);
        console.error(`wrote ${bundle.memories.length} memories to ${options.out}`);
      } else {
        process.stdout.write(text);
      }
    });

  program
    .command('import <userId> <file>')
    .description('import an export bundle for a user (idempotent); waits until recall sees it')
    .option('--url <url>', 'send to a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (userId: string, file: string, options: RemoteOptions) => {
      const config = cliConfig();
      const bundle = parseBundle(fs.readFileSync(file, 'utf8'));
      const result = await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: true }, (engram) =>
        engram.import(userId, bundle),
      );
      console.log(JSON.stringify(result));
    });

  program
    .command('forget-expired')
    .description('apply the forgetting policy now: expire ephemeral memories, archive stale low-confidence ones')
    .option('--user <userId...>', 'only these users (default: every user)')
    .option('--url <url>', 'ask a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (options: RemoteOptions & { user?: string[] }) => {
      const config = cliConfig();
      const result = await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: true }, (engram) =>
        engram.runForgetting(options.user),
      );
      console.log(JSON.stringify(result));
    });

  return program;
}

/** Validates a bundle as the HTTP endpoint does; the error names every offending field. */
function parseBundle(text: string): ExportBundleDto {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('the bundle is not valid JSON');
  }
  const bundle = plainToInstance(ExportBundleDto, raw);
  const errors = validateSync(bundle as object, { whitelist: true, forbidUnknownValues: true, stopAtFirstError: true });
  if (errors.length > 0) throw new Error(`invalid bundle: ${describe(errors).join('; ')}`);
  return bundle;
}

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    return [...Object.values(e.constraints ?? {}).map((c) => `${path}: ${c}`), ...describe(e.children ?? [], path)];
  });
}
