// Lint: what the compiler does not check. `import-x/no-cycle` keeps the module graph a tree
// (a cycle makes load order decide what an import sees); `import-x/no-restricted-paths` keeps the
// folders of libs/services in layers; typescript-eslint's recommended rules catch the usual slips.
// Formatting is prettier's (`.prettierrc.json`), not eslint's.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const ROOT = dirname(fileURLToPath(import.meta.url));
const SERVICES = 'libs/services/src';

/**
 * libs/services/src in layers, top first (docs/architecture.md, "Layers of libs/services"). The files
 * at the top of libs/services/src are the composition and import anything; a folder imports only
 * folders of the layers below its own: never one beside it (no use case imports another), never one
 * above, never the composition. So no two folders import each other, round any loop.
 */
const SERVICE_LAYERS = [
  ['bindings'], // which adapter serves each port: composition too, read only by the top
  ['ingest', 'recall', 'users', 'forgetting', 'admin', 'mcp', 'webhooks'], // the use cases
  ['http'], // what every route shares: tenancy, errors, request fields, contract decorators, health, metrics
  ['replay'], // the offline rebuild, online rebuilds, reprocessing
  ['pipeline'], // stages and projections; publishing, progress and memory commands
  ['crypto'], // sealing, data keys, master keys, encrypt-log
  ['transport'], // reading the log: the Nest transport, dead letters, consumeUpTo
  ['observability'], // metrics, logs, the server file
];
const unlayered = readdirSync(join(ROOT, SERVICES), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !SERVICE_LAYERS.flat().includes(entry.name))
  .map((entry) => `${SERVICES}/${entry.name}/`);
if (unlayered.length > 0) throw new Error(`eslint.config.mjs: put ${unlayered.join(', ')} in a layer of SERVICE_LAYERS`);

const serviceLayerZones = SERVICE_LAYERS.flatMap((layer, depth) =>
  layer.map((folder) => ({
    target: `${SERVICES}/${folder}/**`,
    from: [
      `${SERVICES}/*.ts`,
      ...SERVICE_LAYERS.slice(0, depth + 1)
        .flat()
        .filter((other) => other !== folder)
        .map((other) => `${SERVICES}/${other}/**`),
    ],
    message: `${folder}/ imports only the layers below its own (eslint.config.mjs, SERVICE_LAYERS).`,
  })),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'libs/client/dist/**',
      'libs/client/src/generated/**',
      'apps/inspector/dist/**',
      '.ci/**',
      '.cache/**',
      'coverage/**',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    plugins: { 'import-x': importX },
    settings: {
      // Without these the plugin reads only .js files, and a cycle through .ts files goes unseen.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json'] })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      // A leading underscore names what is left out on purpose (`const { _id, ...rest } = doc`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Specs are left out: a spec puts together what it tests, as the composition does.
    files: [`${SERVICES}/**/*.ts`],
    ignores: ['**/*.spec.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: serviceLayerZones }] },
  },
  {
    // No source file over 400 lines: a file that grows past it is split by what its parts do.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/*/src/generated/**'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
);
