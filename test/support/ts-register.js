// `node -r ./test/support/ts-register.js apps/engram/main.ts …`: runs the TypeScript sources in a
// child process the way ts-jest runs them in tests (transpile only, the tsconfig's path aliases),
// for specs that need the real command line without building dist/ first.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '../..');
const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const compilerOptions = {
  ...ts.convertCompilerOptionsFromJson(config.compilerOptions, root).options,
  sourceMap: false,
  inlineSourceMap: true,
};
const paths = Object.entries(config.compilerOptions.paths);
const aliases = new Map(paths.filter(([alias]) => !alias.endsWith('/*')).map(([alias, [target]]) => [alias, path.join(root, target)]));
// `@engram/services/*` → `libs/services/src/*` (the engram app's CLI imports modules by path).
const prefixes = paths
  .filter(([alias]) => alias.endsWith('/*'))
  .map(([alias, [target]]) => [alias.slice(0, -1), path.join(root, target.slice(0, -1))]);
const aliased = (request) => {
  if (aliases.has(request)) return aliases.get(request);
  const prefix = prefixes.find(([from]) => request.startsWith(from));
  return prefix ? prefix[1] + request.slice(prefix[0].length) : request;
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, aliased(request), ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
