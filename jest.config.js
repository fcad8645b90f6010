// Three projects, one per test kind (file suffix decides): unit = pure code,
// int = adapters against real stores, e2e = the HTTP service end to end.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // tsconfig sets isolatedModules, so ts-jest only transpiles (fast); `npm run typecheck` checks types once.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.cache/'],
};

module.exports = {
  // A generous per-test timeout catches hangs, not slowness: speed is benchmarked, never asserted.
  testTimeout: 60_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.spec.ts'] },
    { ...shared, displayName: 'int', testMatch: ['<rootDir>/**/*.int.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/**/*.e2e.spec.ts'] },
    // Against real Kafka, MongoDB (FerretDB) and Elasticsearch: `npm run test:infra` starts them first.
    { ...shared, displayName: 'infra', testMatch: ['<rootDir>/**/*.infra.spec.ts'] },
  ],
};
