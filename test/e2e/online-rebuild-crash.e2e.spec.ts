import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  openSqliteDatabase,
  SqliteEventLog,
  sqliteFactStoreVersions,
  sqliteSearchIndexVersions,
  sqliteSessionStoreVersions,
} from '@engram/adapters-sqlite';
import { Topics } from '@engram/contracts';
import { lag } from '@engram/ports';
import type { RebuildStatus } from '@engram/services';
import { rebuildOffline } from '../support/engram-harness';

/**
 * An online rebuild survives the death of the process running it: the real
 * server (`node dist/apps/engram/main.js start`, built first) is SIGKILLed in
 * the middle of rebuilding, started again, and continues from its checkpoint
 * (the rebuild's consumer-group offsets + its persisted record), not from zero;
 * the finished version equals a from-scratch rebuild.
 */
jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const USERS = Array.from({ length: 6 }, (_, u) => `crash-${u}`);
const TURNS_PER_USER = 60;
const SENTENCES = [
  'I prefer VS Code for TypeScript work',
  '预算控制在三万以内',
  'we decided to use Kafka for the event bus',
  '我喜欢用 VS Code',
  '预算提到五万了',
  '每周三下午两点例会',
  'I prefer Vim for Rust work',
  '我不吃辣',
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('online rebuild crash and resume (embedded, real process)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-rebuild-crash-'));
  let child: ChildProcess | undefined;
  let url = '';

  beforeAll(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js')], { cwd: ROOT, stdio: 'ignore' });
  });
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/engram/main.js'), 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        ENGRAM_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        ENGRAM_API_KEYS: '',
        // Slow enough to be killed mid-way, in batches of 10.
        ENGRAM_REBUILD_RATE_LIMIT: '100',
        ENGRAM_REBUILD_GRACE_MS: '200',
      },
      stdio: 'ignore',
    });
    for (let i = 0; i < 400; i++) {
      if ((await fetch(`${url}/health`).catch(() => undefined))?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('engram did not start');
  }

  async function stopChild(signal: NodeJS.Signals): Promise<void> {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill(signal);
    await exited;
  }

  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  const rebuilds = async () => (await call<{ rebuilds: RebuildStatus[] }>('GET', '/v1/admin/rebuilds')).rebuilds;

  /** Every versioned projection's tables in the file, as rows, for the given versions. */
  function tables(versions: { facts: number; sessions: number; search: number }): Record<string, unknown[]> {
    const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    try {
      const ns = (version: number) => (version === 1 ? '' : `v${version}_`);
      const rows = (sql: string) => db.prepare(sql).all();
      return {
        facts: rows(
          `SELECT tenant_id, user_id, memory_id, revision, record FROM ${ns(versions.facts)}facts ORDER BY tenant_id, user_id, memory_id`,
        ),
        sessions: rows(
          `SELECT tenant_id, user_id, session_id, turn_id, role, text, occurred_at FROM ${ns(versions.sessions)}session_turns ORDER BY tenant_id, user_id, turn_id`,
        ),
        search: rows(
          `SELECT tenant_id, user_id, memory_id, revision, status, content, terms, vector FROM ${ns(versions.search)}search_documents ORDER BY tenant_id, user_id, memory_id`,
        ),
      };
    } finally {
      db.close();
    }
  }

  it('resumes a rebuild from its checkpoint after SIGKILL and ends equal to a from-scratch rebuild', async () => {
    await start();
    for (const [u, userId] of USERS.entries()) {
      const turns = Array.from({ length: TURNS_PER_USER }, (_, i) => ({
        turnId: `${userId}-t${i}`,
        role: 'user',
        text: `${SENTENCES[(i + u) % SENTENCES.length]} (${i})`,
        occurredAt: new Date(Date.UTC(2026, 10, 1, 9, i)).toISOString(),
      }));
      await call('POST', '/v1/turns', { userId, sessionId: 's1', turns });
    }
    for (let i = 0; (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending > 0; i++) {
      if (i > 2000) throw new Error('pipeline did not settle');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    await call('POST', '/v1/admin/rebuilds', { projection: 'all' });
    // Kill once every rebuild applied a good part but none has finished replaying.
    for (;;) {
      const current = await rebuilds();
      expect(current.every((r) => r.phase === 'replaying')).toBe(true);
      if (current.length === 3 && current.every((r) => r.done >= 100)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stopChild('SIGKILL');

    // The checkpoints the dead process left: each rebuild group's committed offsets.
    const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    const log = new SqliteEventLog(db);
    const checkpoint: Record<string, number> = {};
    const totals: Record<string, number> = {};
    for (const [projection, topic] of [
      ['facts', Topics.facts],
      ['sessions', Topics.screened],
      ['search', Topics.facts],
    ] as const) {
      checkpoint[projection] = lag(await log.committedPosition(topic, `rebuild-${projection}-v2`), {});
      totals[projection] = lag(await log.endPosition(topic), {});
      expect(checkpoint[projection]).toBeGreaterThan(0);
      expect(checkpoint[projection]).toBeLessThan(totals[projection]);
    }
    // Nothing has moved: version 1 still serves.
    for (const versions of [sqliteFactStoreVersions(db), sqliteSessionStoreVersions(db), sqliteSearchIndexVersions(db)]) {
      expect(await versions.active()).toBe(1);
      expect(await versions.list()).toEqual([1, 2]);
    }
    await log.close();
    db.close();

    // Started again, the process resumes the same rebuilds (version 2) from their checkpoints.
    await start();
    const resumed = await rebuilds();
    expect(resumed.map((r) => [r.projection, r.version]).sort()).toEqual([
      ['facts', 2],
      ['search', 2],
      ['sessions', 2],
    ]);
    for (const r of resumed) {
      expect(r.phase).not.toBe('failed');
      if (r.phase === 'replaying') expect(r.done).toBeGreaterThanOrEqual(checkpoint[r.projection]);
    }
    let final: RebuildStatus[];
    for (let i = 0; ; i++) {
      final = await rebuilds();
      if (final.every((r) => r.phase === 'done' || r.phase === 'failed')) break;
      if (i > 6000) throw new Error('rebuilds did not finish');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(final.map((r) => [r.projection, r.version, r.phase]).sort()).toEqual([
      ['facts', 2, 'done'],
      ['search', 2, 'done'],
      ['sessions', 2, 'done'],
    ]);
    for (const r of final) expect(r.done).toBe(totals[r.projection]);

    // The CLI's online rebuild against the running server: sessions again, into version 3.
    const cli = spawnSync(
      process.execPath,
      [path.join(ROOT, 'dist/apps/engram/main.js'), 'rebuild', '--url', url, '--projection', 'sessions'],
      {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      },
    );
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout.trim().split('\n').pop()!)).toMatchObject({
      rebuilt: [{ projection: 'sessions', version: 3, phase: 'done', events: totals.sessions }],
    });
    expect(cli.stderr).toContain('sessions v3');
    await stopChild('SIGTERM');

    // Rebuilt versions serve and the old ones are gone; their content equals a from-scratch rebuild.
    const serving = { facts: 2, sessions: 3, search: 2 };
    const rebuilt = tables(serving);
    expect(rebuilt.facts.length).toBeGreaterThan(0);
    expect(rebuilt.sessions).toHaveLength(USERS.length * TURNS_PER_USER);
    await rebuildOffline(dataDir, { mode: 'embedded' });
    expect(tables(serving)).toEqual(rebuilt);
    const check = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    try {
      for (const versions of [sqliteFactStoreVersions(check), sqliteSessionStoreVersions(check), sqliteSearchIndexVersions(check)]) {
        expect(await versions.active()).toBe(serving[versions.projection]);
        expect(await versions.list()).toEqual([serving[versions.projection]]);
      }
    } finally {
      check.close();
    }
  });
});
