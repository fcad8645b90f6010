import type { Command } from 'commander';
import type { CliModules } from '../cli-modules';
import { runTruthEval } from './runner';

/** Adds `engram eval-truth --dataset <file> [--json] [--verbose]`. */
export function registerTruthEvalCommand(program: Command, modules: CliModules): Command {
  return program
    .command('eval-truth')
    .description(
      'measure whether recall tells what is true now: scenarios of turns over days and sessions, with checks on the context block',
    )
    .requiredOption('--dataset <file>', 'JSON lines: turn lines (as for ingest) and check lines')
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--verbose', 'print the context block of every failing check')
    .action(async (options: { dataset: string; json?: boolean; verbose?: boolean }) => {
      await runTruthEval({ dataset: options.dataset, json: options.json === true, verbose: options.verbose === true }, modules);
    });
}
