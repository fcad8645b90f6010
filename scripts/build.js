#!/usr/bin/env node
// Compiles every app and library with tsc into dist/, then rewrites the
// @engram/* path aliases to relative requires so `node dist/apps/<app>/main.js`
// runs without a loader.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run(bin('tsc'), ['-p', 'tsconfig.build.json']);
run(bin('tsc-alias'), ['-p', 'tsconfig.build.json']);
require('./build-inspector').buildInspector();
