import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** A path inside the directory. */
  file(name: string): string;
  remove(): void;
}

/** A fresh directory under os.tmpdir(), for file-backed stores in integration tests. */
export function makeTempDir(prefix = 'engram-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
