// The docs name files a newcomer is told to open ("to change X, open Y"). When code moves and
// a doc keeps the old name, the doc lies quietly. This spec reads every code span in the docs that
// names a source file or folder and checks the repository still has one by that name: a whole
// path must exist as written; a short name (`ranking.ts`, `recall/recall.service.ts`) must end
// some path in the repository.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  'docs/architecture.md',
  'docs/memory-model.md',
  'docs/operations.md',
  'docs/security.md',
  'libs/domain/src/API.md',
  'test/eval/README.md',
];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.cache', 'coverage']);
/** Code spans that name what a source file or folder is: a path with an extension we keep in git, or a libs/apps folder. */
const SOURCE_NAME = /^[\w@.-]+(\/[\w@.-]+)*\.(ts|mjs|sh|md|jsonl)$/;
const SOURCE_FOLDER = /^(libs|apps|test|scripts|deploy)\/[\w@./-]*$/;

function walk(dir: string, into: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    const name = relative(ROOT, path);
    if (entry.isDirectory()) {
      into.push(`${name}/`);
      walk(path, into);
    } else {
      into.push(name);
    }
  }
  return into;
}

function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((match) => match[1].replace(/:\d+$/, ''));
  return [...new Set(spans)].filter((span) => !span.startsWith('../') && (SOURCE_NAME.test(span) || SOURCE_FOLDER.test(span)));
}

describe('paths named in the docs', () => {
  const repository = walk(ROOT, []);
  const exists = (named: string): boolean => {
    const asFolder = named.endsWith('/') ? named : `${named}/`;
    return repository.some(
      (path) => path === named || path === asFolder || path.endsWith(`/${named}`) || path.endsWith(`/${asFolder}`),
    );
  };

  it.each(DOCS)('%s names only files that exist', (doc) => {
    const named = namedPaths(readFileSync(join(ROOT, doc), 'utf8'));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });

  it('notices a path that is not there', () => {
    expect(namedPaths('see `libs/domain/src/no-such-file.ts` and `ranking.ts`').filter((path) => !exists(path))).toEqual([
      'libs/domain/src/no-such-file.ts',
    ]);
  });
});
