import { Command, InvalidArgumentError } from 'commander';
import type { CliModules } from '../cli-modules';
import { runEval } from './runner';
import { embeddedEngine } from './engines';

function kOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new InvalidArgumentError('k must be an integer from 1 to 50');
  return n;
}

/** Adds `engram eval --dataset <file> [--k 10] [--json] [--misses] [--dump <file>] [--as-of-end] [--url <url>] [--api-key <key>]`. */
export function registerEvalCommand(program: Command, modules: CliModules): Command {
  return program
    .command('eval')
    .description('measure recall on a dataset of turns and questions with known evidence, against BM25 and dense baselines')
    .requiredOption('--dataset <file>', 'JSON lines: turn lines (as for ingest) and question lines')
    .option(
      '--k <k>',
      'headline evidence cut-off (recall@5 and @10 are always reported; recall is asked for max(k, 10) memories) (1-50)',
      kOption,
      10,
    )
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--misses', 'list the questions engram misses in its top k that a baseline finds in its top k')
    .option(
      '--dump <file>',
      "write every question's result (engram's and the baselines' ranked turn ids, what engram returned) as JSON lines",
    )
    .option('--as-of-end', 'ask every question asOf the end of the log (recall over the past views, to compare with the live answer)')
    .option('--url <url>', 'evaluate a running engram (its data is added to) instead of a fresh embedded one')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .action(
      async (options: {
        dataset: string;
        k: number;
        json?: boolean;
        misses?: boolean;
        dump?: string;
        asOfEnd?: boolean;
        url?: string;
        apiKey?: string;
      }) => {
        await runEval(
          {
            dataset: options.dataset,
            k: options.k,
            json: options.json === true,
            misses: options.misses === true,
            dump: options.dump,
            asOfEnd: options.asOfEnd === true,
            url: options.url,
            apiKey: options.apiKey,
          },
          embeddedEngine(modules),
        );
      },
    );
}
