import type { INestApplication } from '@nestjs/common';
import type { Command } from 'commander';
import { loadConfig } from '@engram/config';
import { FactStore, FactStoreVersions, ProjectionVersions, RebuildLedger, SearchIndex, SearchIndexVersions } from '@engram/ports';
import { startApp } from '@engram/services/bootstrap';
import { Reprocessor } from '@engram/services/replay/reprocessor';
import { diffFactVersions, formatDiff, parseFactsVersion } from './diff-projections';
import type { CliModules } from './cli-modules';
import { PhaseBars as Bars } from './phase-bars';

/**
 * `engram reprocess`, `engram diff-projections` and `engram projections`. They
 * work on the data directory (embedded) or the configured servers
 * (distributed), beside a running server or without one: a reprocess only
 * writes versions nobody reads yet and a topic of its own.
 */
export function registerReprocessCommands(program: Command, modules: CliModules): void {
  const cliConfig = () => loadConfig({ LOG_LEVEL: 'warn', ...process.env });

  program
    .command('reprocess')
    .description(
      're-run screening → extraction → resolution over the turns log into new facts and search versions (inactive until activated)',
    )
    .requiredOption(
      '--from <instant|beginning>',
      'beginning, or an ISO instant: memories as they stood then are carried over, later turns re-decided',
    )
    .requiredOption('--extractor-version <v>', 'rules-10, or the configured LLM extractor (llm-6:<ENGRAM_LLM_MODEL>)')
    .option('--activate', 'activate the new versions once built (else: engram projections activate facts@N)')
    .option('--json', 'print only the result as JSON')
    .action(async (options: { from: string; extractorVersion: string; activate?: boolean; json?: boolean }) => {
      await withMaintenance(modules, cliConfig(), async (app) => {
        const reprocessor = app.get(Reprocessor);
        const bars = new Bars();
        const result = await reprocessor.run({
          from: options.from,
          extractorVersion: options.extractorVersion,
          onProgress: (p) => bars.update(p),
        });
        bars.stop();
        const activation = options.activate
          ? await reprocessor.activate(result.factsVersion, { onProgress: (p) => bars.update(p) })
          : undefined;
        bars.stop();
        console.log(JSON.stringify({ ...result, ...(activation ? { activated: activation } : {}) }));
        if (!options.json) {
          console.error(
            activation
              ? `facts@${result.factsVersion} and search@${result.searchVersion} now serve; the old versions stay until dropped (engram projections drop facts@${activation.previousFactsVersion}).`
              : `built facts@${result.factsVersion} and search@${result.searchVersion}. Compare: engram diff-projections active facts@${result.factsVersion}; switch: engram projections activate facts@${result.factsVersion}`,
          );
        }
      });
    });

  program
    .command('diff-projections <a> <b>')
    .description('what changed between two versions of the facts projection (facts@N, N or active), per tenant and user')
    .option('--tenant <tenantId>', 'only this tenant')
    .option('--user <userId>', 'only this user')
    .option('--json', 'the diff as JSON')
    .action(async (a: string, b: string, options: { tenant?: string; user?: string; json?: boolean }) => {
      await withMaintenance(modules, cliConfig(), async (app) => {
        const versions = app.get<ProjectionVersions<FactStore>>(FactStoreVersions);
        const active = await versions.active();
        const diff = await diffFactVersions(versions, parseFactsVersion(a, active), parseFactsVersion(b, active), {
          tenantId: options.tenant,
          userId: options.user,
        });
        console.log(options.json ? JSON.stringify(diff, null, 2) : formatDiff(diff));
      });
    });

  const projections = program.command('projections').description('list, activate and drop projection versions');
  projections
    .command('list')
    .description('versions of each projection, the active one, and how each was built')
    .action(async () => {
      await withMaintenance(modules, cliConfig(), async (app) => {
        const facts = app.get<ProjectionVersions<FactStore>>(FactStoreVersions);
        const search = app.get<ProjectionVersions<SearchIndex>>(SearchIndexVersions);
        const records = await app.get<RebuildLedger>(RebuildLedger).list();
        const out = [];
        for (const [name, versions] of [
          ['facts', facts],
          ['search', search],
        ] as const) {
          out.push({
            projection: name,
            active: await versions.active(),
            versions: await versions.list(),
            builds: records
              .filter((r) => r.projection === name)
              .map((r) => ({ version: r.version, phase: r.phase, reprocess: r.reprocess, swappedAt: r.swappedAt, error: r.error })),
          });
        }
        console.log(JSON.stringify(out, null, 2));
      });
    });
  projections
    .command('activate <version>')
    .description(
      'serve a reprocessed facts version (facts@N) and its search version: re-decides the turns that arrived since, then switches',
    )
    .action(async (spec: string) => {
      await withMaintenance(modules, cliConfig(), async (app) => {
        const bars = new Bars();
        const version = parseFactsVersion(spec, 0);
        const result = await app.get(Reprocessor).activate(version, { onProgress: (p) => bars.update(p) });
        bars.stop();
        console.log(JSON.stringify({ activated: result }));
      });
    });
  projections
    .command('drop <version>')
    .description('delete an inactive version (facts@N or search@N)')
    .action(async (spec: string) => {
      const match = /^(facts|search)@(\d+)$/.exec(spec);
      if (!match) throw new Error(`a version to drop is facts@<n> or search@<n>, not "${spec}"`);
      await withMaintenance(modules, cliConfig(), async (app) => {
        await app.get(Reprocessor).drop(match[1] as 'facts' | 'search', Number(match[2]));
        console.log(JSON.stringify({ dropped: spec }));
      });
    });
}

async function withMaintenance(
  modules: CliModules,
  config: ReturnType<typeof loadConfig>,
  work: (app: INestApplication) => Promise<void>,
): Promise<void> {
  const app = await startApp(modules.rebuild(config), { http: false, stages: false });
  try {
    await work(app);
  } finally {
    await app.close();
  }
}
