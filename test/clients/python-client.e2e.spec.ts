import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';

/*
 * The Python client (clients/python) in `npm test`: scripts/python-client-tests.sh builds or reuses
 * its venv under .cache/python-client and runs pytest, which starts a real embedded engram and the
 * chat-model stub itself. Skipped, with one line saying so, only on a machine without a Python the
 * pinned set installs on.
 */
const root = path.resolve(__dirname, '../..');
const script = path.join(root, 'scripts/python-client-tests.sh');
const check = spawnSync('bash', [script, '--check'], { cwd: root, encoding: 'utf8' });
const runnable = check.status === 0;
if (!runnable) process.stderr.write(`${check.stderr.trim() || 'python client: skipped, no suitable Python'}\n`);

function run(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script, ...args], { cwd: root, env: process.env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('the Python client (clients/python)', () => {
  (runnable ? it : it.skip)(
    'passes its pytest suite against a real engram',
    async () => {
      const { status, output } = await run(['-q']);
      // On failure the assertion shows pytest's own report.
      expect({ status, tail: status === 0 ? '' : output.split('\n').slice(-80).join('\n') }).toEqual({ status: 0, tail: '' });
      expect(output).toMatch(/\d+ passed/);
    },
    20 * 60_000,
  );
});
