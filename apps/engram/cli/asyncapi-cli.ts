import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contractFiles } from '@engram/contracts';

/**
 * `engram asyncapi [dir]`: writes the log's contract (asyncapi.json and events/*.schema.json)
 * under `dir` (default docs), generated from the event schemas; a schema file no event has any
 * more is removed, so the directory holds exactly the current contract.
 */
function writeContractFiles(dir: string): string[] {
  const files = contractFiles();
  const events = path.join(dir, 'events');
  fs.mkdirSync(events, { recursive: true });
  for (const stale of fs.readdirSync(events).filter((f) => f.endsWith('.schema.json') && !(`events/${f}` in files))) {
    fs.rmSync(path.join(events, stale));
  }
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return Object.keys(files);
}

export function registerAsyncApiCommand(program: Command): void {
  program
    .command('asyncapi [dir]')
    .description("write the AsyncAPI document and the events' JSON Schemas (default under docs/)")
    .action((dir = 'docs') => {
      const written = writeContractFiles(dir);
      console.error(`wrote ${written.length} files under ${dir}: asyncapi.json, events/*.schema.json`);
    });
}
