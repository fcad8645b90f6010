import { Command, InvalidArgumentError } from 'commander';
import type { SingleBar } from 'cli-progress';
import { progressBar } from './progress-bar';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '@engram/config';
import { boundAddress, openApiDocument, startApp } from '@engram/services/bootstrap';
import { RecallDto } from '@engram/services/recall/recall.dto';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  PROJECTION_NAMES,
  ProjectionName,
  RECALL_FILTER_FIELD_NAMES,
  RECALL_FILTER_FIELDS,
  recallFilterDeclaration,
  type RecallFilterField,
} from '@engram/contracts';
import { Rebuilder } from '@engram/services/replay/rebuilder';
import { rebuildOnline } from './online-rebuild-cli';
import { VERSIONED_PROJECTIONS } from '@engram/ports';
import { announceServer, runningServer } from '@engram/services/observability/server-file';
import { registerDlqCommands } from './dlq';
import { registerBenchCommand } from './bench';
import { registerEvalCommand } from './eval';
import { registerTruthEvalCommand } from './eval-truth';
import { registerExportImportCommands } from './export-import';
import { registerMemoryControlCommands } from './memory-control-cli';
import { registerReprocessCommands } from './reprocess-cli';
import { registerEncryptLogCommand } from './encrypt-log-cli';
import { registerRotateMasterKeyCommand } from './rotate-master-key-cli';
import { LineError, parseTurnLines, toRequests } from './turn-lines';
import { registerMcpCommand } from './mcp-cli';
import { registerAsyncApiCommand } from './asyncapi-cli';
import { withClient, withEmbedded } from './client/connect';
import type { EngramClient } from './client/engram-client';
import { httpEngramClient } from './client/http-engram-client';
import type { CliModules } from './cli-modules';

export type { CliModules } from './cli-modules';

class UsageError extends Error {}

function intOption(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return n;
  };
}

/** The `engram` command line: start, ingest, recall, rebuild, status, openapi. */
export function buildCli(modules: CliModules): Command {
  const program = new Command('engram').description('Event-sourced long-term memory for LLM applications').showHelpAfterError();
  // The CLI talks; the server logs. Quiet by default unless LOG_LEVEL says otherwise.
  const cliConfig = () => loadConfig({ LOG_LEVEL: 'warn', ...process.env });

  program
    .command('start')
    .description('run the all-in-one embedded server (PORT, data under ENGRAM_DATA_DIR)')
    .action(async () => {
      const config = loadConfig();
      const app = await startApp(modules.server(config), { http: true, stages: true });
      const bound = boundAddress(app);
      // The CLI's own commands connect to it; a wildcard address is reached on loopback.
      const url = bound.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
      const retire = announceServer(config.ENGRAM_DATA_DIR, url);
      // Nest re-raises SIGTERM/SIGINT after closing, so 'exit' alone would miss them.
      process.once('exit', retire);
      process.once('SIGTERM', retire);
      process.once('SIGINT', retire);
      const reach = bound === url ? 'loopback only' : 'all interfaces';
      console.error(
        `engram listening on ${bound} (${reach}; docs at ${url}/docs, inspector at ${url}/inspector, data in ${config.ENGRAM_DATA_DIR})`,
      );
    });

  program
    .command('ingest <file>')
    .description('ingest a JSON-lines file of turns; waits until recall sees them')
    .option('--url <url>', 'send to a running engram instead of the data directory')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (file: string, options: { url?: string; apiKey?: string }) => {
      const config = cliConfig();
      const lines = parseTurnLines(fs.readFileSync(file, 'utf8'));
      const requests = toRequests(lines, config.ENGRAM_MAX_TURNS_PER_REQUEST);
      const bar = progressBar(true, 'ingest', lines.length);
      await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: true }, async (engram) => {
        let last = '';
        for (const request of requests) {
          last = (await engram.ingest(request)).position;
          bar.increment(request.turns.length);
        }
        bar.stop();
        if (engram.kind === 'http') {
          await waitRemote(engram);
          console.log(JSON.stringify({ turns: lines.length, position: last }));
        } else {
          await drain(engram);
          console.log(JSON.stringify({ turns: lines.length }));
        }
      });
    });

  const recallCommand = program
    .command('recall <userId> <query>')
    .description("print what engram recalls for a user's query (JSON)")
    .option('--session <sessionId>', 'include the recent turns of this session')
    .option('-k, --k <k>', 'how many memories', intOption('k'));
  for (const field of RECALL_FILTER_FIELD_NAMES) recallCommand.option(recallFilterFlags(field), RECALL_FILTER_FIELDS[field].summary);
  recallCommand
    .option('--valid-at <instant>', 'what was true at this ISO instant according to the conversation')
    .option('--as-of <instant>', 'as engram knew it at this ISO instant')
    .option('--debug', 'include score components')
    .option('--url <url>', 'ask a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (userId: string, query: string, options: RecallOptions) => {
      const config = cliConfig();
      const body = recallBody(userId, query, options);
      await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.server(config), stages: false }, async (engram) => {
        console.log(JSON.stringify(await engram.recall(body), null, 2));
      });
    });

  program
    .command('rebuild')
    .description('offline: drop projections and replay the log into them; with --url: online, into new versions while the old ones serve')
    .option(
      '--projection <name>',
      `one of ${PROJECTION_NAMES.join(', ')}, or all (online: ${VERSIONED_PROJECTIONS.join(', ')}, all)`,
      'all',
    )
    .option('--url <url>', 'rebuild online on this running engram (POST /v1/admin/rebuilds), with progress until done')
    .option('--admin-key <key>', 'admin key for --url (or ENGRAM_ADMIN_KEY)')
    .action(async (options: { projection: string; url?: string; adminKey?: string }) => {
      const config = cliConfig();
      if (options.url) {
        await rebuildOnline(
          httpEngramClient({ url: options.url, adminKey: options.adminKey ?? process.env.ENGRAM_ADMIN_KEY }),
          options.projection,
        );
        return;
      }
      const names: readonly ProjectionName[] =
        options.projection === 'all' ? PROJECTION_NAMES : PROJECTION_NAMES.filter((n) => n === options.projection);
      if (names.length === 0) throw new UsageError(`--projection must be one of ${PROJECTION_NAMES.join(', ')}, all`);
      const server = runningServer(config.ENGRAM_DATA_DIR);
      if (server)
        throw new UsageError(
          `an engram server (pid ${server.pid}) is using ${config.ENGRAM_DATA_DIR}: stop it before an offline rebuild, or rebuild online with --url ${server.url}`,
        );
      await withEmbedded(modules.rebuild(config), false, async (app) => {
        const started = Date.now();
        let bar: SingleBar | undefined;
        let current = '';
        const { events } = await app.get(Rebuilder).rebuild(names, (p) => {
          if (p.projection !== current) {
            bar?.stop();
            current = p.projection;
            bar = progressBar(true, p.projection.padEnd(12), p.total);
          }
          bar?.update(p.done);
        });
        bar?.stop();
        const seconds = (Date.now() - started) / 1000;
        console.log(JSON.stringify({ rebuilt: names, events, seconds, eventsPerSec: Math.round(events / Math.max(seconds, 0.001)) }));
      });
    });

  program
    .command('status')
    .description('how far the read side is behind the log')
    .option('--url <url>', 'ask a running engram')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(async (options: { url?: string; apiKey?: string }) => {
      const config = cliConfig();
      await withClient(options, config.ENGRAM_DATA_DIR, { module: () => modules.rebuild(config), stages: false }, async (engram) => {
        console.log(JSON.stringify(await engram.pipelineStatus(), null, 2));
      });
    });

  program
    .command('openapi [file]')
    .description('write the OpenAPI document (default docs/openapi.json)')
    .action(async (file = 'docs/openapi.json') => {
      const config = loadConfig({
        ...process.env,
        LOG_LEVEL: 'silent',
        ENGRAM_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'engram-openapi-')),
      });
      await withEmbedded(modules.server(config), false, async (app) => {
        fs.writeFileSync(file, `${JSON.stringify(openApiDocument(app), null, 2)}\n`);
        console.error(`wrote ${file}`);
      });
      fs.rmSync(config.ENGRAM_DATA_DIR, { recursive: true, force: true });
    });

  registerEvalCommand(program, modules);
  registerTruthEvalCommand(program, modules);
  registerExportImportCommands(program, modules);
  registerMemoryControlCommands(program, modules);
  registerBenchCommand(program, modules);
  registerDlqCommands(program, modules);
  registerReprocessCommands(program, modules);
  registerRotateMasterKeyCommand(program, modules);
  registerEncryptLogCommand(program, modules);
  registerMcpCommand(program);
  registerAsyncApiCommand(program);
  return program;
}

/** `--kinds <kind...>`: a recall filter field as an option (commander names its value after the field). */
function recallFilterFlags(field: RecallFilterField): string {
  const { shape, placeholder } = recallFilterDeclaration(field);
  const flag = field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return `--${flag} <${placeholder}${shape === 'instant' ? '' : '...'}>`;
}

/** The filter fields as given on the command line: unchecked until the DTO validates them. */
type RecallFilterOptions = { [F in RecallFilterField]?: unknown };

interface RecallOptions extends RecallFilterOptions {
  session?: string;
  k?: number;
  validAt?: string;
  asOf?: string;
  debug?: boolean;
  url?: string;
  apiKey?: string;
}

/** The recall request, validated as the HTTP endpoint validates it (the embedded path has no ValidationPipe). */
function recallBody(userId: string, query: string, options: RecallOptions): RecallDto {
  const body = plainToInstance(RecallDto, {
    userId,
    query,
    sessionId: options.session,
    k: options.k,
    ...Object.fromEntries(RECALL_FILTER_FIELD_NAMES.map((field) => [field, options[field]])),
    validAt: options.validAt,
    asOf: options.asOf,
    debug: options.debug,
  });
  const errors = validateSync(body, { skipUndefinedProperties: true, stopAtFirstError: true });
  if (errors.length > 0) throw new UsageError(errors.flatMap((e) => Object.values(e.constraints ?? {})).join('; '));
  return body;
}

/** Runs the CLI; errors become one clear line on stderr and exit code 1 (2 for usage). */
export async function runCli(modules: CliModules, argv: readonly string[]): Promise<void> {
  try {
    await buildCli(modules).parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof LineError || error instanceof UsageError) {
      console.error(`engram: ${error.message}`);
      process.exit(error instanceof UsageError ? 2 : 1);
    }
    console.error(`engram: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/** Waits, with a progress bar, until recall sees everything ingested. */
async function drain(engram: EngramClient): Promise<void> {
  const bar = progressBar(true, 'pipeline', Math.max(1, await engram.pending()));
  const total = bar.getTotal();
  for (;;) {
    const pending = await engram.pending();
    bar.update(Math.max(0, total - pending));
    if (pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  bar.update(total);
  bar.stop();
}

/** Waits, without a bar, until a running engram's recall sees everything ingested. */
async function waitRemote(engram: EngramClient): Promise<void> {
  while ((await engram.pending()) !== 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
