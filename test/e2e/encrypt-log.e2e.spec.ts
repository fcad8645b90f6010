import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { openSqliteDatabase } from '@engram/adapters-sqlite';
import { loadConfig, type EngramConfig } from '@engram/config';
import { type ConsumedMessage, EventLog, KeyStore, LogVersions } from '@engram/ports';
import { consumeUpTo, LogEncryptor, PipelineProgress, startApp, type EncryptLogResult } from '@engram/services';
import { buildCli } from '../../apps/engram/cli/engram-cli';
import { EngramModule } from '../../apps/engram/engram.module';
import { occurrences } from '../support/data-scan';
import { EngramHarness, rebuildOffline, startEngram, turnsBody } from '../support/engram-harness';
import { drained, startOldEngram } from '../support/old-engram';

/*
 * `engram encrypt-log` (docs/security.md, "Sealing a log from before"), embedded. An engram from
 * before crypto-shredding — the same server with the event log adapter as it is, unsealed and
 * unversioned — writes its users' words in plaintext into every topic; one user is forgotten,
 * which then erased only the projections. encrypt-log seals the log into version 2 and deletes
 * the old topics: afterwards no byte of any file of the data directory holds the forgotten
 * user's words, the log holds no user's words in plaintext, every user still recalls after an
 * offline rebuild, and forgetting now shreds.
 */
jest.setTimeout(180_000);

const FORGOTTEN = 'forgotten-before';
const RETURNING = 'came-back';
const LATER = 'forgotten-after';
const KEPT = 'kept-user';
const FORGOTTEN_WORDS = ['Quillbramble', 'Zephyrinex', '琥珀猫头鹰', 'zephyrine.q@example.com'];
const RETURNING_BEFORE = ['Obsidianwhisk', '青铜蜗牛'];
const RETURNING_AFTER = ['Lanternfjord'];
const LATER_WORDS = ['Tamarindol', '翡翠蜻蜓'];
const KEPT_WORDS = ['Marmalorian', '紫檀琵琶'];
/** In a turn the old engram dead-lettered (a schema version it did not know): plaintext in the dead-letter topic only. */
const DEAD_LETTER_WORD = 'Xylophantom';

const modules = {
  server: (config: EngramConfig) => EngramModule.forRoot({ config }),
  rebuild: (config: EngramConfig) => EngramModule.forMaintenance({ config }),
};

/** Reads the embedded data file with a connection of its own, closed after. */
function inDatabase<T>(dataDir: string, read: (db: ReturnType<typeof openSqliteDatabase>) => T): T {
  const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every row of the event log, as stored. */
function logRows(dataDir: string): { topic: string; value: string }[] {
  return inDatabase(
    dataDir,
    (db) => db.prepare('SELECT topic, value FROM log_messages ORDER BY topic, log_offset').all() as { topic: string; value: string }[],
  );
}

/** Every message of every topic of the log's version, opened as engram opens them (keys from the key store). */
async function openedLog(dataDir: string): Promise<ConsumedMessage[]> {
  const app = await startApp(EngramModule.forMaintenance({ config: configOf(dataDir) }), { http: false, stages: false });
  try {
    const log = app.get<EventLog>(EventLog);
    const messages: ConsumedMessage[] = [];
    for (const topic of await log.listTopics()) {
      await consumeUpTo(log, topic, `test-reader-${randomUUID()}`, await log.endPosition(topic), async (batch) => {
        messages.push(...batch);
      });
    }
    return messages;
  } finally {
    await app.close();
  }
}

/** A user's events in the opened log: readable ones by type, and how many are shredded. */
function eventsOf(messages: readonly ConsumedMessage[], userId: string): { readable: string[]; shredded: number } {
  const ofUser = messages.filter((m) => (m.value as { userId?: string } | undefined)?.userId === userId);
  return {
    readable: ofUser.filter((m) => !m.shredded).map((m) => JSON.stringify(m.value)),
    shredded: ofUser.filter((m) => m.shredded).length,
  };
}

/** The consumer groups with a position on any topic of the log. */
function groupsOf(dataDir: string): string[] {
  return inDatabase(dataDir, (db) => db.prepare('SELECT DISTINCT grp FROM log_group_offsets ORDER BY grp').pluck().all() as string[]);
}

/** The event log's topics, as stored. */
function topicsOf(dataDir: string): string[] {
  return inDatabase(dataDir, (db) => db.prepare('SELECT topic FROM log_topics ORDER BY topic').pluck().all() as string[]);
}

function configOf(dataDir: string, env: Record<string, string> = {}): EngramConfig {
  return loadConfig({
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
    ENGRAM_REBUILD_BATCH_SIZE: '7',
    ...env,
    ENGRAM_DATA_DIR: dataDir,
  });
}

/** `engram encrypt-log --json` in-process, on the data directory. */
async function encryptLog(dataDir: string): Promise<EncryptLogResult> {
  const saved = { ...process.env };
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  Object.assign(process.env, { LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir, ENGRAM_REBUILD_BATCH_SIZE: '7' });
  try {
    await buildCli(modules).exitOverride().parseAsync(['node', 'engram', 'encrypt-log', '--json']);
    return JSON.parse(String(log.mock.calls[0][0])) as EncryptLogResult;
  } finally {
    process.env = saved;
    log.mockRestore();
    error.mockRestore();
  }
}

/** Users' turns on the old engram, a forget, a user coming back, and a turn it dead-letters. */
async function writeOldLog(dataDir: string): Promise<void> {
  const old = await startOldEngram(configOf(dataDir));
  try {
    const http = () => request(old.getHttpServer());
    const turns = async (userId: string, texts: string[], prefix: string) =>
      http()
        .post('/v1/turns')
        .send(
          turnsBody(
            userId,
            's1',
            texts.map((text, i) => ({ turnId: `${prefix}${i}`, text })),
          ),
        )
        .expect(202);
    await turns(
      FORGOTTEN,
      ['我叫Zephyrinex，我的邮箱是 zephyrine.q@example.com。', 'My cat is called Quillbramble and I love 琥珀猫头鹰 cookies.'],
      'f',
    );
    await turns(RETURNING, ['My bike is called Obsidianwhisk.', '我最喜欢青铜蜗牛。'], 'r');
    await turns(LATER, ['I prefer Tamarindol tea over any other.', '我爱翡翠蜻蜓。'], 'l');
    await turns(KEPT, ['My dog is called Marmalorian.', '我最喜欢的乐器是紫檀琵琶。'], 'k');
    await drained(old);
    await http().delete(`/v1/users/${FORGOTTEN}`).expect(200);
    await http().delete(`/v1/users/${RETURNING}`).expect(200);
    await turns(RETURNING, ['My new bike is called Lanternfjord.'], 'n');
    // A producer's turn of a schema version this engram does not know: dead-lettered, plaintext and all.
    await old.get<EventLog>(EventLog).append('memory.turns.v1', [
      {
        key: `default:${KEPT}`,
        value: {
          eventId: 'future-1',
          type: 'TurnRecorded',
          schemaVersion: 99,
          tenantId: 'default',
          userId: KEPT,
          occurredAt: '2026-11-30T08:00:00.000Z',
          recordedAt: '2026-11-30T08:00:00.000Z',
          causationId: null,
          correlationId: 'future-1',
          payload: { sessionId: 's1', turnId: 'x1', role: 'user', text: `I keep a ${DEAD_LETTER_WORD} in the attic.` },
        },
      },
    ]);
    await drained(old);
  } finally {
    await old.close();
  }
}

describe('engram encrypt-log (embedded): a log from before crypto-shredding, sealed', () => {
  let engram: EngramHarness | undefined;
  const dirs: string[] = [];
  const newDataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-encrypt-log-'));
    dirs.push(dir);
    return dir;
  };

  afterEach(async () => {
    await engram?.destroy();
    engram = undefined;
  });
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function recall(userId: string, query: string): Promise<string> {
    const response = await engram!.http().post('/v1/recall').send({ userId, query, k: 20 }).expect(200);
    return JSON.stringify(response.body);
  }

  it('seals every topic into version 2 and deletes the old one: no plaintext in the log, a forgotten user nowhere, every other user recalled; forgetting then shreds', async () => {
    const dataDir = newDataDir();
    await writeOldLog(dataDir);

    // What the old engram left: the forgotten user's words in the log, in plaintext, and the dead letter.
    expect(occurrences(dataDir, FORGOTTEN_WORDS).length).toBeGreaterThan(0);
    expect(occurrences(dataDir, [DEAD_LETTER_WORD]).length).toBeGreaterThan(0);
    const before = logRows(dataDir);
    const stages = ['turns', 'screened', 'extracted', 'facts', 'access'].map((t) => `memory.${t}.v1`);
    expect(new Set(before.map((r) => r.topic))).toEqual(new Set([...stages, 'memory.turns.v1.dlq']));
    expect(topicsOf(dataDir)).toEqual([...stages, ...stages.map((t) => `${t}.dlq`)].sort());

    const result = await encryptLog(dataDir);
    expect(result).toMatchObject({ from: 1, to: 2, switched: true, resumed: false, leftOver: [] });
    const total = (field: 'messages' | 'sealed' | 'shredded' | 'unchanged' | 'unattributed') =>
      result.topics.reduce((n, t) => n + t[field], 0);
    expect(total('messages')).toBe(before.length);
    expect(total('sealed') + total('shredded') + total('unchanged')).toBe(before.length);
    expect(total('shredded')).toBeGreaterThan(0); // the forgotten users' events before their forget
    expect(total('unattributed')).toBe(0);
    expect(result.topics.find((t) => t.topic === 'memory.turns.v1.dlq')).toMatchObject({ messages: 1, sealed: 1 });
    // The run read every topic with a group of its own, and left none behind.
    expect(groupsOf(dataDir).filter((g) => g.startsWith('encrypt-log-'))).toEqual([]);

    // The log: only version 2, as many messages, no user's words readable in it.
    expect(topicsOf(dataDir)).toEqual([...stages, ...stages.map((t) => `${t}.dlq`)].map((t) => `${t}.log2`).sort());
    const after = logRows(dataDir);
    expect(new Set(after.map((r) => r.topic))).toEqual(new Set(before.map((r) => `${r.topic}.log2`)));
    expect(after).toHaveLength(before.length);
    const everyWord = [...FORGOTTEN_WORDS, ...RETURNING_BEFORE, ...RETURNING_AFTER, ...LATER_WORDS, ...KEPT_WORDS, DEAD_LETTER_WORD];
    expect(everyWord.filter((word) => after.some((r) => r.value.includes(word)))).toEqual([]);
    // On disk: the forgotten user's words, the returning user's before their forget and the dead letter nowhere;
    // the others' words in the projections only (the scan sees what is there).
    expect(occurrences(dataDir, [...FORGOTTEN_WORDS, ...RETURNING_BEFORE, DEAD_LETTER_WORD])).toEqual([]);
    expect(occurrences(dataDir, KEPT_WORDS)).not.toEqual([]);

    // Opened as engram opens the log: the forgotten users' events before their forget are shredded
    // (no key was made for them), everything else reads as it was written.
    const opened = await openedLog(dataDir);
    const forgotten = eventsOf(opened, FORGOTTEN);
    expect(forgotten.shredded).toBeGreaterThan(0);
    expect(forgotten.readable.every((json) => json.includes('"type":"UserForgotten"'))).toBe(true);
    const returning = eventsOf(opened, RETURNING);
    expect(returning.shredded).toBeGreaterThan(0);
    expect(RETURNING_BEFORE.filter((word) => returning.readable.some((json) => json.includes(word)))).toEqual([]);
    expect(returning.readable.some((json) => json.includes('Lanternfjord'))).toBe(true);
    for (const [userId, words] of [
      [KEPT, KEPT_WORDS],
      [LATER, LATER_WORDS],
    ] as const) {
      const events = eventsOf(opened, userId);
      expect({ userId, shredded: events.shredded }).toEqual({ userId, shredded: 0 });
      expect(words.every((word) => events.readable.some((json) => json.includes(word)))).toBe(true);
    }
    expect(
      opened.some((m) => m.raw.includes('"reason":"invalid"') && (m.value as { raw: string }).raw.includes('"sealed":"aes-256-gcm"')),
    ).toBe(true);
    const maintenance = await startApp(EngramModule.forMaintenance({ config: configOf(dataDir) }), { http: false, stages: false });
    expect(await maintenance.get<KeyStore>(KeyStore).get('default', FORGOTTEN)).toBeUndefined();
    await maintenance.close();

    // engram serves from version 2: positions carried over (nothing re-processed), new turns flow.
    engram = await startEngram({ dataDir });
    expect(await engram.app.get(PipelineProgress).pending()).toBe(0);
    const { body } = await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(KEPT, 's2', [{ turnId: 'k9', text: 'My parrot is called Fennimore.' }]))
      .expect(202);
    await engram.http().post('/v1/recall').send({ userId: KEPT, query: 'parrot', after: body.position }).expect(200);
    expect(logRows(dataDir).filter((r) => r.topic === 'memory.turns.v1.log2')).toHaveLength(
      before.filter((r) => r.topic === 'memory.turns.v1').length + 1,
    );

    // An offline rebuild opens every sealed event: every user as before, the forgotten ones gone.
    await engram.stop();
    expect(await rebuildOffline(dataDir)).toBeGreaterThan(0);
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
    expect(await recall(KEPT, 'parrot Fennimore')).toContain('Fennimore');
    expect(await recall(LATER, 'Tamarindol tea')).toContain('Tamarindol');
    expect(await recall(RETURNING, 'bike Lanternfjord Obsidianwhisk')).toContain('Lanternfjord');
    expect(await recall(RETURNING, 'bike Lanternfjord Obsidianwhisk')).not.toContain('Obsidianwhisk');
    expect(await recall(FORGOTTEN, 'Quillbramble cat')).not.toContain('Quillbramble');

    // Forgetting now shreds: the user's words are in no file, raw or decryptable.
    await engram.http().delete(`/v1/users/${LATER}`).expect(200);
    await engram.stop();
    expect(await rebuildOffline(dataDir)).toBeGreaterThan(0);
    expect(occurrences(dataDir, [...LATER_WORDS, ...FORGOTTEN_WORDS, ...RETURNING_BEFORE, DEAD_LETTER_WORD])).toEqual([]);
    expect(occurrences(dataDir, KEPT_WORDS)).not.toEqual([]);

    // Run again: the log is sealed, nothing to do.
    expect(await encryptLog(dataDir)).toMatchObject({ from: 2, to: 2, switched: false });
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
  });

  it('resumes a run interrupted mid-copy (nothing lost or doubled); refuses while a server runs or another run holds the log; --abort gives up a run', async () => {
    const dataDir = newDataDir();
    await writeOldLog(dataDir);
    const before = logRows(dataDir);
    const eventIds = (rows: { topic: string; value: string }[], topic: string) =>
      rows
        .filter((r) => r.topic === topic)
        .map((r) => {
          const value = JSON.parse(r.value) as { eventId?: string; offset?: number };
          return value.eventId ?? `letter of offset ${value.offset}`;
        });

    // Refused while a server announces itself on the data directory; nothing claimed.
    fs.writeFileSync(path.join(dataDir, 'engram.server.json'), JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:1' }));
    await expect(encryptLog(dataDir)).rejects.toThrow(/an engram server \(pid \d+\) is using .*: stop it first/);
    fs.rmSync(path.join(dataDir, 'engram.server.json'));

    // Killed half-way through the copy of the turns topic (after a batch was written, before it was committed).
    const maintenance = await startApp(EngramModule.forMaintenance({ config: configOf(dataDir) }), { http: false, stages: false });
    let batches = 0;
    await expect(
      maintenance.get(LogEncryptor).run({
        onProgress: (p) => {
          // From the third batch on, every attempt dies (the log retries a failed batch a few times).
          if (p.phase === 'sealing' && p.done > 0 && ++batches >= 3) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    const interrupted = await maintenance.get<LogVersions>(LogVersions).read();
    await maintenance.close();
    expect(interrupted).toMatchObject({ version: 1, migration: { phase: 'copying', owner: null, from: 1, to: 2 } });
    const partial = logRows(dataDir).filter((r) => r.topic.endsWith('.log2'));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(before.length);

    // Meanwhile engram does not start: it would write to topics about to be deleted.
    await expect(startEngram({ dataDir })).rejects.toThrow(/being sealed into version 2 by engram encrypt-log/);

    // A run that holds the log (alive, heartbeat fresh) keeps a second one out.
    const db = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    const row = db.prepare('SELECT state, revision FROM log_versions').get() as { state: string; revision: number };
    const held = JSON.parse(row.state) as { migration: Record<string, unknown> };
    held.migration = { ...held.migration, owner: { host: os.hostname(), pid: process.pid }, heartbeatAt: new Date().toISOString() };
    db.prepare('UPDATE log_versions SET state = ?').run(JSON.stringify(held));
    db.close();
    await expect(encryptLog(dataDir)).rejects.toThrow(/encrypt-log run v2-\S+ is running \(pid \d+/);
    const reopened = openSqliteDatabase(path.join(dataDir, 'engram.db'));
    reopened.prepare('UPDATE log_versions SET state = ?').run(row.state);
    reopened.close();

    // Run again: it resumes, and every topic holds each of its events once, in the old order.
    const result = await encryptLog(dataDir);
    expect(result).toMatchObject({ from: 1, to: 2, switched: true, resumed: true });
    const after = logRows(dataDir);
    expect(after).toHaveLength(before.length);
    for (const topic of new Set(before.map((r) => r.topic)))
      expect({ topic, ids: eventIds(after, `${topic}.log2`) }).toEqual({ topic, ids: eventIds(before, topic) });
    expect(occurrences(dataDir, [...FORGOTTEN_WORDS, ...RETURNING_BEFORE, DEAD_LETTER_WORD])).toEqual([]);
    engram = await startEngram({ dataDir });
    expect(await engram.app.get(PipelineProgress).pending()).toBe(0);
    await engram.stop();
    expect(await rebuildOffline(dataDir)).toBeGreaterThan(0);
    engram = await startEngram({ dataDir });
    expect(await recall(KEPT, 'Marmalorian')).toContain('Marmalorian');
    await engram.destroy();
    engram = undefined;

    // --abort: an interrupted run is given up, its copies deleted, the log writable at version 1 again.
    const other = newDataDir();
    await writeOldLog(other);
    const again = await startApp(EngramModule.forMaintenance({ config: configOf(other) }), { http: false, stages: false });
    const killedWhileVerifying = again.get(LogEncryptor).run({
      onProgress: (p) => {
        if (p.phase === 'verifying') throw new Error('killed');
      },
    });
    await expect(killedWhileVerifying).rejects.toThrow('killed');
    expect(await again.get(LogEncryptor).abort()).toMatchObject({ deleted: expect.arrayContaining(['memory.turns.v1.log2']) });
    expect(await again.get<LogVersions>(LogVersions).read()).toEqual({ version: 1, revision: expect.any(Number) });
    await again.close();
    expect(new Set(logRows(other).map((r) => r.topic))).toEqual(new Set(before.map((r) => r.topic)));
    engram = await startEngram({ dataDir: other });
    await engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(KEPT, 's3', [{ turnId: 'z1', text: 'hello' }]))
      .expect(202);
  });
});
