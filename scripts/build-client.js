#!/usr/bin/env node
// Builds @engram/client (libs/client) on its own: ESM in dist/esm (relative imports given their
// .js extensions by tsc-alias, as Node's ESM loader needs) and CommonJS in dist/cjs. The few pure
// engram files the SDK imports (PII masking, deterministic ids, topic names) compile with it, so
// dist mirrors libs/: dist/<format>/client/src/index.js, dist/<format>/domain/src/privacy/pii-masking.js.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lib = path.join(root, 'libs', 'client');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: lib, stdio: 'inherit' });

fs.rmSync(path.join(lib, 'dist'), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.esm.json']);
run(bin('tsc-alias'), ['-p', 'tsconfig.esm.json', '--resolve-full-paths']);
run(bin('tsc'), ['-p', 'tsconfig.cjs.json']);
fs.writeFileSync(path.join(lib, 'dist', 'esm', 'package.json'), '{ "type": "module" }\n');
fs.writeFileSync(path.join(lib, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
