#!/usr/bin/env node
// Entry point for `npx engram` and `npm start`: builds on first use (or when
// sources are newer than the build), then hands over to the compiled CLI.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const main = path.join(root, 'dist', 'apps', 'engram', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // A library's own build output (libs/client/dist) is not a source.
    if (entry.isDirectory() && (entry.name === 'dist' || entry.name === 'node_modules')) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const stale = () =>
  !fs.existsSync(main) ||
  Math.max(newestSource(path.join(root, 'apps')), newestSource(path.join(root, 'libs'))) > fs.statSync(main).mtimeMs;

if (fs.existsSync(path.join(root, 'apps')) && stale()) {
  console.error('engram: building (first run or sources changed)…');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.utimesSync(main, new Date(), new Date());
}
require(main);
