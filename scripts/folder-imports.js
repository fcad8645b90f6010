#!/usr/bin/env node
// The folder-level import graph of libs/services/src: which folder imports which, and whether
// any two folders import each other (a two-way pair) or import each other round a longer loop.
// The files at the top of libs/services/src are the composition and count as one node, `(top)`.
// Specs are left out, as the lint rule that keeps the layers (eslint.config.mjs) leaves them out.
//
//   node scripts/folder-imports.js          pairs and loops; exits 1 if there is one
//   node scripts/folder-imports.js --edges  also every folder edge with the files behind it
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', 'libs', 'services', 'src');
const TOP = '(top)';

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [file] : [];
  });
}

const folderOf = (file) => {
  const parts = path.relative(ROOT, file).split(path.sep);
  return parts.length === 1 ? TOP : parts[0];
};

/** The file an import names, if it is in libs/services/src (relative, or through the @engram/services alias). */
function resolveImport(from, specifier) {
  let target;
  if (specifier.startsWith('.')) target = path.join(path.dirname(from), specifier);
  else if (specifier === '@engram/services') target = path.join(ROOT, 'index');
  else if (specifier.startsWith('@engram/services/')) target = path.join(ROOT, specifier.slice('@engram/services/'.length));
  else return null;
  return [`${target}.ts`, path.join(target, 'index.ts')].find((candidate) => fs.existsSync(candidate)) ?? null;
}

// `import … from`, `export … from`, `import type …`, side-effect imports, import() and require().
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)'([^']+)'/g;

const edges = new Map(); // 'a -> b' => ['a/x.ts -> b/y.ts', …]
for (const file of sourceFiles(ROOT)) {
  for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolveImport(file, specifier);
    if (!target) continue;
    const [a, b] = [folderOf(file), folderOf(target)];
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    if (!edges.has(key)) edges.set(key, []);
    edges.get(key).push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`);
  }
}

const pairs = [...edges.keys()].map((key) => key.split(' -> ')).filter(([a, b]) => a < b && edges.has(`${b} -> ${a}`));

// Loops of any length: the strongly connected components with more than one folder (Tarjan).
const next = new Map();
for (const key of edges.keys()) {
  const [a, b] = key.split(' -> ');
  next.set(a, [...(next.get(a) ?? []), b]);
  if (!next.has(b)) next.set(b, []);
}
const loops = [];
const index = new Map();
const low = new Map();
const stack = [];
let counter = 0;
function visit(node) {
  index.set(node, counter);
  low.set(node, counter++);
  stack.push(node);
  for (const to of next.get(node)) {
    if (!index.has(to)) {
      visit(to);
      low.set(node, Math.min(low.get(node), low.get(to)));
    } else if (stack.includes(to)) low.set(node, Math.min(low.get(node), index.get(to)));
  }
  if (low.get(node) !== index.get(node)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    component.push(member);
  } while (member !== node);
  if (component.length > 1) loops.push(component.sort());
}
for (const node of next.keys()) if (!index.has(node)) visit(node);

console.log(`${next.size} folders, ${edges.size} folder edges, ${pairs.length} two-way pairs, ${loops.length} loops`);
for (const [a, b] of pairs) {
  console.log(`\n${a} <-> ${b}`);
  for (const line of [...edges.get(`${a} -> ${b}`), ...edges.get(`${b} -> ${a}`)]) console.log(`  ${line}`);
}
for (const loop of loops) console.log(`\nloop: ${loop.join(', ')}`);
if (process.argv.includes('--edges')) {
  console.log('');
  for (const [key, lines] of [...edges].sort()) console.log(`${key}\n${lines.map((line) => `  ${line}`).join('\n')}`);
}
process.exitCode = pairs.length + loops.length > 0 ? 1 : 0;
