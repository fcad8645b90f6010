// Lint: what the compiler does not check. `import-x/no-cycle` keeps the module graph a tree
// (a cycle makes load order decide what an import sees); typescript-eslint's recommended rules
// catch the usual slips. Formatting is prettier's (`.prettierrc.json`), not eslint's.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

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
    // No source file over 400 lines: a file that grows past it is split by what its parts do.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/*/src/generated/**'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
);
