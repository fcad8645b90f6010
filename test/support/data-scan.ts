import * as fs from 'node:fs';
import * as path from 'node:path';

/** Every file under a directory, as bytes. */
export function filesOf(dir: string): { name: string; bytes: Buffer }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesOf(full) : [{ name: path.relative(dir, full), bytes: fs.readFileSync(full) }];
  });
}

/**
 * Where each word occurs in the directory's files: its UTF-8 bytes as written and lower-cased, and
 * the hex of either (the form the SQLite search index stores terms in). One line per finding.
 */
export function occurrences(dir: string, words: readonly string[]): string[] {
  const found: string[] = [];
  for (const { name, bytes } of filesOf(dir)) {
    for (const word of words) {
      for (const form of new Set([word, word.toLowerCase()])) {
        const utf8 = Buffer.from(form, 'utf8');
        if (bytes.includes(utf8)) found.push(`${word} in ${name}`);
        if (bytes.includes(Buffer.from(utf8.toString('hex'), 'latin1'))) found.push(`${word} (hex) in ${name}`);
      }
    }
  }
  return found;
}
