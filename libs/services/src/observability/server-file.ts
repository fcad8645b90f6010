import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A running embedded server announces itself in its data directory, so CLI
 * commands talk to it over HTTP instead of opening the same stages twice.
 */
export interface ServerFile {
  readonly pid: number;
  readonly url: string;
}

const fileOf = (dataDir: string) => path.join(dataDir, 'engram.server.json');

export function announceServer(dataDir: string, url: string): () => void {
  const file = fileOf(dataDir);
  // Distributed mode keeps nothing else there, so the directory may not exist yet.
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, url } satisfies ServerFile), { mode: 0o600 });
  return () => {
    try {
      const current = JSON.parse(fs.readFileSync(file, 'utf8')) as ServerFile;
      if (current.pid === process.pid) fs.unlinkSync(file);
    } catch {
      // already gone
    }
  };
}

/** The server running on this data directory, if its process is alive. */
export function runningServer(dataDir: string): ServerFile | null {
  try {
    const server = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as ServerFile;
    process.kill(server.pid, 0);
    return server;
  } catch {
    return null;
  }
}
