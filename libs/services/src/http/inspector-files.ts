import { NotFoundException } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Response } from 'express';

/** Where `npm run build` puts the inspector (scripts/build-inspector.js): `dist/inspector` under the package root. */
function inspectorDir(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'inspector');
    if (path.dirname(dir) === dir) return path.join(from, 'inspector');
  }
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Scripts and styles from this origin only; data only through the API, with the key the page holds. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The built inspector's files. A file name is looked up in the directory's listing, never joined into a path. */
export class InspectorFiles {
  constructor(private readonly dir: string = inspectorDir()) {}

  send(res: Response, file: string): void {
    const files = fs.existsSync(this.dir) ? fs.readdirSync(this.dir) : [];
    if (files.length === 0) throw new NotFoundException('the inspector is not built: run `npm run build`');
    const type = TYPES[path.extname(file)];
    if (!type || !files.includes(file)) throw new NotFoundException(`no such inspector file: ${file}`);
    res
      .status(200)
      .set({ 'content-type': type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' })
      .send(fs.readFileSync(path.join(this.dir, file)));
  }
}
