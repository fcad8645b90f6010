import type { INestApplication, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import type { Command } from 'commander';
import * as fs from 'node:fs';
import { loadConfig } from '@engram/config';
import { startApp } from '../bootstrap';
import { ExportBundleDto } from '../users/export.dto';
import { ExportService } from '../users/export.service';
import { DEFAULT_TENANT } from '../http/tenancy';
import { ForgettingService } from '../admin/forgetting/forgetting.job';
import type { CliModules } from './cli-modules';
import { runningServer } from './server-file';

/** Memories per HTTP import request, so a large bundle stays under the server's body limit. */
const REMOTE_CHUNK = 300;

export interface RemoteOptions {
  url?: string;
  apiKey?: string;
}

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
      const remote = remoteOf(options, config.ENGRAM_DATA_DIR);
      const bundle = remote
        ? await remote('GET', `/v1/users/${encodeURIComponent(userId)}/export`)
        : await withEmbedded(modules.server(config), false, (app) => app.get(ExportService).export(DEFAULT_TENANT, userId));
      const text = `${JSON.stringify(bundle, null, 2)}\n`;
      if (options.out) {
        fs.writeFileSync(options.out, text);
        console.error(`wrote ${(bundle as ExportBundleDto).memories.length} memories to ${options.out}`);
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
      const remote = remoteOf(options, config.ENGRAM_DATA_DIR);
      if (remote) {
        const total = { memories: 0, added: 0, consistent: true };
        for (let i = 0; i === 0 || i < bundle.memories.length; i += REMOTE_CHUNK) {
          const part = { ...bundle, memories: bundle.memories.slice(i, i + REMOTE_CHUNK) };
          const result = (await remote('POST', `/v1/users/${encodeURIComponent(userId)}/import`, part)) as typeof total;
          total.memories += result.memories;
          total.added += result.added;
          total.consistent &&= result.consistent;
        }
        console.log(JSON.stringify(total));
        return;
      }
      const result = await withEmbedded(modules.server(config), true, (app) =>
        app.get(ExportService).import(DEFAULT_TENANT, userId, bundle),
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
      const remote = remoteOf(options, config.ENGRAM_DATA_DIR);
      const result = remote
        ? await remote('POST', '/v1/admin/forgetting/run', options.user ? { userIds: options.user } : {})
        : await withEmbedded(modules.server(config), true, (app) =>
            app.get(ForgettingService).run({ tenantId: DEFAULT_TENANT, userIds: options.user, wait: true }),
          );
      console.log(JSON.stringify(result));
    });

  return program;
}

/** Validates a bundle as the HTTP endpoint does; the error names every offending field. */
export function parseBundle(text: string): ExportBundleDto {
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

export async function withEmbedded<T>(
  module: Type<unknown> | object,
  stages: boolean,
  work: (app: INestApplication) => Promise<T>,
): Promise<T> {
  const app = await startApp(module, { http: false, stages });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

export type Remote = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<unknown>;

/** `--url`, or the server announced in the data directory. */
export function remoteOf(options: RemoteOptions, dataDir: string): Remote | null {
  const url = options.url ?? runningServer(dataDir)?.url;
  if (!url) return null;
  const key = options.apiKey ?? process.env.ENGRAM_API_KEY;
  return async (method, path, body) => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
    return JSON.parse(text) as unknown;
  };
}
