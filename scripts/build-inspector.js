#!/usr/bin/env node
// The web inspector (apps/inspector): its TypeScript compiled to ES modules and its page and
// stylesheet copied, into dist/inspector, which the server serves at /inspector.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const app = path.join(root, 'apps', 'inspector');
const STATIC_FILES = ['index.html', 'inspector.css'];

function buildInspector(outDir = path.join(root, 'dist', 'inspector')) {
  fs.rmSync(outDir, { recursive: true, force: true });
  execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(app, 'tsconfig.json'), '--outDir', outDir], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const file of STATIC_FILES) fs.copyFileSync(path.join(app, file), path.join(outDir, file));
  return outDir;
}

module.exports = { buildInspector };
if (require.main === module) buildInspector();
