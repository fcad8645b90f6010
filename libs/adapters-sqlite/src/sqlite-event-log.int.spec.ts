import * as fs from 'node:fs';
import type { ConsumedMessage } from '@engram/ports';
import { lag } from '@engram/ports';
import { eventually, makeTempDir, testEventLog, uniqueName } from '@engram/testing';
import { type Database, openSqliteDatabase } from './sqlite-database';
import { type HandlerFailure, SqliteEventLog, type SqliteEventLogOptions } from './sqlite-event-log.adapter';

const quiet: SqliteEventLogOptions = { retryDelayMs: 10, maxRetryDelayMs: 50, onHandlerError: () => undefined };

/** Writes a stored value as is, the way a corrupt or foreign row would look. */
function appendRawRow(db: Database, topic: string, key: string, raw: string): void {
  db.transaction(() => {
    db.prepare('INSERT OR IGNORE INTO log_topics (topic, next_offset, created_at) VALUES (?, 0, ?)').run(topic, Date.now());
    const { next_offset } = db.prepare('SELECT next_offset FROM log_topics WHERE topic = ?').get(topic) as {
      next_offset: number;
    };
    db.prepare('INSERT INTO log_messages (topic, log_offset, key, value, timestamp) VALUES (?, ?, ?, ?, ?)').run(
      topic,
      next_offset,
      key,
      raw,
      Date.now(),
    );
    db.prepare('UPDATE log_topics SET next_offset = ? WHERE topic = ?').run(next_offset + 1, topic);
  }).immediate();
}

describe('SqliteEventLog', () => {
  const dir = makeTempDir('engram-log-');
  afterAll(() => dir.remove());

  describe('against a file', () => {
    const db = openSqliteDatabase(dir.file('contract.db'));
    testEventLog(async () => ({ log: new SqliteEventLog(db, quiet), topic: (name) => name }), {
      rejectsSecondConsumerInGroup: true,
      appendRaw: async (_subject, topic, key, raw) => appendRawRow(db, topic, key, raw),
      teardown: async ({ log }) => {
        await log.close();
        db.close();
      },
    });
  });

  describe('in memory', () => {
    const db = openSqliteDatabase(':memory:');
    testEventLog(async () => ({ log: new SqliteEventLog(db, quiet), topic: (name) => name }), {
      rejectsSecondConsumerInGroup: true,
      teardown: async ({ log }) => {
        await log.close();
        db.close();
      },
    });
  });

  it('with a linger, hands over a partial batch only after waiting for it to fill; without, at once', async () => {
    const db = openSqliteDatabase(':memory:');
    const batchesWith = async (lingerMs: number): Promise<number[][]> => {
      const log = new SqliteEventLog(db, { ...quiet, lingerMs });
      const topic = uniqueName('linger');
      const batches: number[][] = [];
      await log.ensureTopics([topic]);
      const sub = await log.subscribe({ topic, group: 'stage', maxBatchSize: 10 }, async (batch) => {
        batches.push(batch.map((m) => m.offset));
      });
      await log.append(topic, [{ key: 't:u', value: { n: 0 } }]);
      // The consumer has the first message (and, with a linger, is waiting for more) when the rest arrive.
      await eventually(() => batches.length > 0 || lingerMs > 0, 'the first read');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await log.append(
        topic,
        [1, 2].map((n) => ({ key: 't:u', value: { n } })),
      );
      await eventually(() => batches.flat().length === 3, 'all three messages', 10_000);
      await sub.stop();
      await log.close();
      return batches;
    };
    expect(await batchesWith(0)).toEqual([[0], [1, 2]]);
    expect(await batchesWith(2_000)).toEqual([[0, 1, 2]]);
    db.close();
  });

  it('keeps messages and committed offsets across close and reopen, with dense offsets from 0', async () => {
    const file = dir.file('durable.db');
    const topic = 'memory.turns.v1';
    const group = 'filter';

    let db = openSqliteDatabase(file);
    let log = new SqliteEventLog(db, quiet);
    await log.ensureTopics([topic]);
    expect(
      await log.append(topic, [
        { key: 't:u', value: { n: 0 } },
        { key: 't:u', value: { n: 1 } },
      ]),
    ).toEqual({ 0: 2 });
    expect(await log.append(topic, [{ key: 't:u', value: { n: 2 } }])).toEqual({ 0: 3 });
    const seen: ConsumedMessage[] = [];
    const sub = await log.subscribe({ topic, group, maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch);
    });
    await eventually(() => seen.length === 3, 'three messages');
    await sub.stop();
    expect(seen.map((m) => m.offset)).toEqual([0, 1, 2]);
    await log.append(topic, [{ key: 't:u', value: { n: 3 } }]);
    await log.close();
    db.close();

    db = openSqliteDatabase(file);
    log = new SqliteEventLog(db, quiet);
    expect(await log.endPosition(topic)).toEqual({ 0: 4 });
    expect(await log.committedPosition(topic, group)).toEqual({ 0: 3 });
    const resumed: ConsumedMessage[] = [];
    const again = await log.subscribe({ topic, group }, async (batch) => {
      resumed.push(...batch);
    });
    await eventually(() => resumed.length === 1, 'the message appended before closing');
    await again.stop();
    expect(resumed.map((m) => [m.offset, m.value])).toEqual([[3, { n: 3 }]]);

    await log.resetGroup(topic, group, { to: 'beginning' });
    const replayed: unknown[] = [];
    const replay = await log.subscribe({ topic, group }, async (batch) => {
      replayed.push(...batch.map((m) => m.value));
    });
    await eventually(() => replayed.length === 4, 'the whole log');
    await replay.stop();
    expect(replayed).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    await log.close();
    db.close();
  });

  it('given a log stored WITHOUT ROWID (the layout before), then it opens in the rowid layout with every message, offset and position kept', async () => {
    const file = dir.file('without-rowid.db');
    const topic = 'memory.turns.v1';
    let db = openSqliteDatabase(file);
    db.exec(`
      CREATE TABLE log_messages (
        topic TEXT NOT NULL, log_offset INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, timestamp INTEGER NOT NULL,
        PRIMARY KEY (topic, log_offset)
      ) WITHOUT ROWID;
    `);
    let log = new SqliteEventLog(db, quiet);
    // The constructor moved the empty old table already: put it back with rows, as a data directory from before holds it.
    db.exec(`
      DROP TABLE log_messages;
      CREATE TABLE log_messages (
        topic TEXT NOT NULL, log_offset INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, timestamp INTEGER NOT NULL,
        PRIMARY KEY (topic, log_offset)
      ) WITHOUT ROWID;
    `);
    await log.ensureTopics([topic, 'other']);
    for (let n = 0; n < 5; n++) appendRawRow(db, topic, 't:u', JSON.stringify({ n }));
    appendRawRow(db, 'other', 't:v', JSON.stringify({ other: true }));
    db.prepare('INSERT INTO log_group_offsets (topic, grp, next_offset, updated_at) VALUES (?, ?, ?, ?)').run(
      topic,
      'filter',
      2,
      Date.now(),
    );
    await log.close();
    db.close();

    db = openSqliteDatabase(file);
    log = new SqliteEventLog(db, quiet);
    const layout = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'log_messages'").pluck().get() as string;
    expect(layout).not.toMatch(/WITHOUT\s+ROWID/i);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'log_messages_rowid'").pluck().get()).toBe(0);
    expect(await log.endPosition(topic)).toEqual({ 0: 5 });
    expect(await log.committedPosition(topic, 'filter')).toEqual({ 0: 2 });
    expect(await log.append(topic, [{ key: 't:u', value: { n: 5 } }])).toEqual({ 0: 6 });
    const seen: ConsumedMessage[] = [];
    const sub = await log.subscribe({ topic, group: 'filter', maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch);
    });
    await eventually(() => seen.length === 4, 'the messages after the committed position');
    await sub.stop();
    expect(seen.map((m) => [m.offset, m.value])).toEqual([
      [2, { n: 2 }],
      [3, { n: 3 }],
      [4, { n: 4 }],
      [5, { n: 5 }],
    ]);
    expect(await log.endPosition('other')).toEqual({ 0: 1 });
    await log.close();
    db.close();
  });

  it('sees appends made through another connection (another process) by polling', async () => {
    const file = dir.file('two-connections.db');
    const consumerDb = openSqliteDatabase(file);
    const producerDb = openSqliteDatabase(file);
    const consumerLog = new SqliteEventLog(consumerDb, { ...quiet, pollIntervalMs: 10 });
    const producerLog = new SqliteEventLog(producerDb, quiet);
    const topic = uniqueName('cli.topic');
    const values: unknown[] = [];
    const sub = await consumerLog.subscribe({ topic, group: 'g' }, async (batch) => {
      values.push(...batch.map((m) => m.value));
    });
    await producerLog.append(topic, [{ key: 'k', value: 'from the CLI' }]);
    await eventually(() => values.length === 1, 'the other connection’s append', 2_000);
    await sub.stop();
    expect(values).toEqual(['from the CLI']);
    expect(await consumerLog.committedPosition(topic, 'g')).toEqual({ 0: 1 });
    consumerDb.close();
    producerDb.close();
  });

  it('close() stops running subscriptions after their batch and commits it', async () => {
    const db = openSqliteDatabase(':memory:');
    const log = new SqliteEventLog(db, quiet);
    const topic = uniqueName('topic');
    await log.append(topic, [{ key: 'k', value: 1 }]);
    let handled = 0;
    await log.subscribe({ topic, group: 'g' }, async (batch) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      handled += batch.length;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await log.close();
    expect(handled).toBe(1);
    expect(lag(await log.endPosition(topic), await log.committedPosition(topic, 'g'))).toBe(0);
    // The group is free again once closed.
    const sub = await log.subscribe({ topic, group: 'g' }, async () => undefined);
    await sub.stop();
    db.close();
  });

  it('reports each failed attempt with a growing delay (each retry on the first half), and stop() during the backoff returns at once without committing', async () => {
    const db = openSqliteDatabase(':memory:');
    const failures: HandlerFailure[] = [];
    const log = new SqliteEventLog(db, {
      retryDelayMs: 20,
      maxRetryDelayMs: 10_000,
      onHandlerError: (_error, failure) => failures.push(failure),
    });
    const topic = uniqueName('topic');
    await log.append(topic, [
      { key: 'k', value: 1 },
      { key: 'k', value: 2 },
    ]);
    const sub = await log.subscribe({ topic, group: 'g' }, async () => {
      throw new Error('always failing');
    });
    await eventually(() => failures.length >= 3, 'three failed attempts');
    const started = Date.now();
    await sub.stop();
    expect(Date.now() - started).toBeLessThan(500);
    expect(failures.slice(0, 3)).toEqual([
      { topic, group: 'g', firstOffset: 0, lastOffset: 1, attempt: 1, retryInMs: 20 },
      { topic, group: 'g', firstOffset: 0, lastOffset: 0, attempt: 2, retryInMs: 40 },
      { topic, group: 'g', firstOffset: 0, lastOffset: 0, attempt: 3, retryInMs: 80 },
    ]);
    expect(await log.committedPosition(topic, 'g')).toEqual({ 0: 0 });
    db.close();
  });

  it('accepts any topic name, even one EventEmitter treats specially', async () => {
    const db = openSqliteDatabase(':memory:');
    const log = new SqliteEventLog(db, quiet);
    const got: unknown[] = [];
    const sub = await log.subscribe({ topic: 'error', group: 'g' }, async (batch) => {
      got.push(...batch.map((m) => m.value));
    });
    await log.append('error', [{ key: 'k', value: 'fine' }]);
    await eventually(() => got.length === 1, 'the message');
    await sub.stop();
    db.close();
  });

  it('appends many batches durably and in order', async () => {
    const db = openSqliteDatabase(dir.file('throughput.db'));
    const log = new SqliteEventLog(db, quiet);
    const topic = 'bench.turns';
    const batch = Array.from({ length: 1_000 }, (_, i) => ({
      key: `tenant:user-${i % 50}`,
      value: {
        eventId: `e-${i}`,
        type: 'TurnRecorded',
        schemaVersion: 1,
        tenantId: 'tenant',
        userId: `user-${i % 50}`,
        occurredAt: '2026-01-05T09:00:00.000Z',
        recordedAt: '2026-01-05T09:00:00.000Z',
        causationId: null,
        correlationId: `c-${i}`,
        payload: {
          sessionId: 's',
          turnId: `t-${i}`,
          role: 'user',
          text: 'I prefer PostgreSQL for new services, 我们的数据库用 PostgreSQL',
        },
      },
    }));
    const total = 50_000;
    for (let done = 0; done < total; done += batch.length) await log.append(topic, batch);
    // Speed is measured by `engram bench` (docs/benchmarks.md), never asserted in tests.
    expect(await log.endPosition(topic)).toEqual({ 0: total });
    db.close();
  });

  it('deletes a topic so that no byte of its messages stays in the database file or its write-ahead log; refuses while a consumer runs', async () => {
    const file = dir.file('delete-topic.db');
    const db = openSqliteDatabase(file);
    const log = new SqliteEventLog(db, quiet);
    const words = ['Quillbramble', '琥珀猫头鹰'];
    await log.append(
      'old.topic',
      Array.from({ length: 300 }, (_, i) => ({ key: 'k', value: { i, text: `${words[i % 2]} ${'x'.repeat(200)}` } })),
    );
    await log.append('kept.topic', [{ key: 'k', value: { text: 'Marmalorian' } }]);
    const onDisk = () => ['', '-wal'].map((suffix) => (fs.existsSync(file + suffix) ? fs.readFileSync(file + suffix) : Buffer.alloc(0)));
    const found = (word: string) => onDisk().some((bytes) => bytes.includes(Buffer.from(word, 'utf8')));
    expect(words.every(found)).toBe(true);

    const running = await log.subscribe({ topic: 'old.topic', group: 'reader' }, async () => undefined);
    await eventually(async () => (await log.committedPosition('old.topic', 'reader'))[0] === 300, 'the reader to commit');
    await expect(log.deleteTopics(['old.topic'])).rejects.toThrow(/group "reader" is running/);
    await running.stop();

    await log.deleteTopics(['old.topic']);
    expect(words.filter(found)).toEqual([]);
    expect(found('Marmalorian')).toBe(true);
    expect(await log.listTopics()).toEqual(['kept.topic']);
    db.close();
  });
});
