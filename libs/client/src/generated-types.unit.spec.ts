import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '../../..');

describe('@engram/client types', () => {
  it('are what openapi-typescript generates from docs/openapi.json', async () => {
    const committed = readFileSync(path.join(__dirname, 'generated/openapi.ts'), 'utf8');
    // The same command as `npm run client:types`, to stdout.
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/openapi-typescript'),
      ['docs/openapi.json', '--default-non-nullable', 'false'],
      { cwd: root },
    );
    // If this fails after an API change, regenerate with `npm run openapi` (or `npm run client:types`).
    expect(committed).toBe(stdout);
  });
});
