#!/usr/bin/env node
// Compiles every app and library with tsc into dist/, then rewrites the
// @engram/* path aliases to relative requires so `node dist/apps/<app>/main.js`
// runs without a loader.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

/**
 * tsc builds incrementally and never deletes: the output of a source that was moved or removed
 * stays in dist/ and can shadow the new module (`require('./eval')` finds a stale eval.js before
 * the new eval/index.js). Drops every compiled file whose .ts source is gone, and empty folders.
 */
function pruneStale(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      pruneStale(full);
      if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
      continue;
    }
    const compiled = /\.js(\.map)?$/.exec(entry.name);
    if (!compiled) continue;
    const source = path.join(root, path.relative(path.join(root, 'dist'), full)).replace(/\.js(\.map)?$/, '.ts');
    if (!fs.existsSync(source)) fs.rmSync(full);
  }
}

run(bin('tsc'), ['-p', 'tsconfig.build.json']);
run(bin('tsc-alias'), ['-p', 'tsconfig.build.json']);
pruneStale(path.join(root, 'dist', 'apps'));
pruneStale(path.join(root, 'dist', 'libs'));
require('./build-inspector').buildInspector();
