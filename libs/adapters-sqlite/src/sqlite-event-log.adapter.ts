import type BetterSqlite3 from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import {
  type BatchHandler,
  type ConsumerSpec,
  type EventLog,
  type GroupInfo,
  type LogMessage,
  type LogPosition,
  type ResetTarget,
  serialiseLogValue,
  type StoredMessage,
  type Subscription,
} from '@engram/ports';
import { type Database, immediate } from './sqlite-database';
import {
  appendedEvent,
  consumerKey,
  consumersOf,
  defaultOnHandlerError,
  type MessageRow,
  PARTITION,
  signalsOf,
  type SqliteEventLogOptions,
} from './sqlite-log-signals';
import { SqliteConsumer } from './sqlite-consumer';

export type { HandlerFailure, SqliteEventLogOptions } from './sqlite-log-signals';

/**
 * Messages in a rowid table, found by a unique index on (topic, offset). A sealed event is a kilobyte
 * or two: as the key of a WITHOUT ROWID table (the layout before), two or three fitted in a page, so
 * appends split pages of the whole rows and the file held 2.4x their size; in a rowid table they are
 * appended at the end and only the index is a B-tree of small keys — half the CPU a message (11 µs
 * less, measured on 60,000 sealed-size rows) and less than half the file.
 */
const MESSAGES_TABLE = (name: string): string => `
      CREATE TABLE IF NOT EXISTS ${name} (
        topic      TEXT    NOT NULL,
        log_offset INTEGER NOT NULL,
        key        TEXT    NOT NULL,
        value      TEXT    NOT NULL,
        timestamp  INTEGER NOT NULL,
        UNIQUE (topic, log_offset)
      );`;

/**
 * A data directory from before has the messages WITHOUT ROWID: they are copied into the rowid
 * layout, in one transaction (another process on the file sees the old table or the new one, and the
 * first to open it does the work), and the old table is dropped (its pages zeroed: secure_delete).
 */
function migrateMessagesToRowid(db: Database): void {
  const layout = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'log_messages'").pluck();
  const withoutRowid = () => /WITHOUT\s+ROWID/i.test(layout.get() ?? '');
  if (!withoutRowid()) return;
  immediate(db, () => {
    if (!withoutRowid()) return;
    db.exec(`
      ${MESSAGES_TABLE('log_messages_rowid')}
      INSERT INTO log_messages_rowid (topic, log_offset, key, value, timestamp)
        SELECT topic, log_offset, key, value, timestamp FROM log_messages ORDER BY topic, log_offset;
      DROP TABLE log_messages;
      ALTER TABLE log_messages_rowid RENAME TO log_messages;
    `);
  })();
}

/**
 * The embedded event log: an append-only SQLite table with dense offsets per
 * topic (one partition) and a committed offset per consumer group.
 */
export class SqliteEventLog implements EventLog {
  private readonly options: Required<SqliteEventLogOptions>;
  private readonly signals: EventEmitter;
  private readonly consumers = new Set<SqliteConsumer>();
  private readonly statements: {
    registerTopic: BetterSqlite3.Statement<[string, number]>;
    nextOffset: BetterSqlite3.Statement<[string], { next_offset: number }>;
    insertMessage: BetterSqlite3.Statement<[string, number, string, string, number]>;
    setNextOffset: BetterSqlite3.Statement<[number, string]>;
    readBatch: BetterSqlite3.Statement<[string, number, number], MessageRow>;
    committed: BetterSqlite3.Statement<[string, string], { next_offset: number }>;
    commit: BetterSqlite3.Statement<[string, string, number, number]>;
    firstAtOrAfter: BetterSqlite3.Statement<[string, number], { log_offset: number | null }>;
    topics: BetterSqlite3.Statement<[], string>;
    groups: BetterSqlite3.Statement<[string], string>;
    deleteMessages: BetterSqlite3.Statement<[string]>;
    deleteTopic: BetterSqlite3.Statement<[string]>;
    deleteGroups: BetterSqlite3.Statement<[string]>;
    deleteGroup: BetterSqlite3.Statement<[string, string]>;
  };
  private readonly appendTx: (topic: string, messages: readonly { key: string; raw: string; timestamp: number }[]) => number;

  constructor(
    private readonly db: Database,
    options: SqliteEventLogOptions = {},
  ) {
    this.options = {
      pollIntervalMs: options.pollIntervalMs ?? 25,
      lingerMs: options.lingerMs ?? 0,
      retryDelayMs: options.retryDelayMs ?? 250,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
      maxBatchSize: options.maxBatchSize ?? 500,
      onHandlerError: options.onHandlerError ?? defaultOnHandlerError,
    };
    this.signals = signalsOf(db);
    migrateMessagesToRowid(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS log_topics (
        topic       TEXT PRIMARY KEY,
        next_offset INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL
      );
      ${MESSAGES_TABLE('log_messages')}
      CREATE TABLE IF NOT EXISTS log_group_offsets (
        topic       TEXT    NOT NULL,
        grp         TEXT    NOT NULL,
        next_offset INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        PRIMARY KEY (topic, grp)
      ) WITHOUT ROWID;
    `);
    this.statements = {
      registerTopic: db.prepare('INSERT OR IGNORE INTO log_topics (topic, next_offset, created_at) VALUES (?, 0, ?)'),
      nextOffset: db.prepare('SELECT next_offset FROM log_topics WHERE topic = ?'),
      insertMessage: db.prepare('INSERT INTO log_messages (topic, log_offset, key, value, timestamp) VALUES (?, ?, ?, ?, ?)'),
      setNextOffset: db.prepare('UPDATE log_topics SET next_offset = ? WHERE topic = ?'),
      readBatch: db.prepare(
        'SELECT log_offset, key, value, timestamp FROM log_messages WHERE topic = ? AND log_offset >= ? ORDER BY log_offset LIMIT ?',
      ),
      committed: db.prepare('SELECT next_offset FROM log_group_offsets WHERE topic = ? AND grp = ?'),
      commit: db.prepare(
        `INSERT INTO log_group_offsets (topic, grp, next_offset, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (topic, grp) DO UPDATE SET next_offset = excluded.next_offset, updated_at = excluded.updated_at`,
      ),
      firstAtOrAfter: db.prepare('SELECT MIN(log_offset) AS log_offset FROM log_messages WHERE topic = ? AND timestamp >= ?'),
      topics: db.prepare<[], string>('SELECT topic FROM log_topics ORDER BY topic').pluck(),
      groups: db.prepare<[string], string>('SELECT grp FROM log_group_offsets WHERE topic = ? ORDER BY grp').pluck(),
      deleteMessages: db.prepare('DELETE FROM log_messages WHERE topic = ?'),
      deleteTopic: db.prepare('DELETE FROM log_topics WHERE topic = ?'),
      deleteGroups: db.prepare('DELETE FROM log_group_offsets WHERE topic = ?'),
      deleteGroup: db.prepare('DELETE FROM log_group_offsets WHERE topic = ? AND grp = ?'),
    };
    this.appendTx = immediate(db, (topic: string, messages: readonly { key: string; raw: string; timestamp: number }[]) => {
      const s = this.statements;
      s.registerTopic.run(topic, Date.now());
      let next = s.nextOffset.get(topic)!.next_offset;
      for (const message of messages) s.insertMessage.run(topic, next++, message.key, message.raw, message.timestamp);
      s.setNextOffset.run(next, topic);
      return next;
    });
  }

  async ensureTopics(topics: readonly string[]): Promise<void> {
    const now = Date.now();
    immediate(this.db, () => {
      for (const topic of topics) this.statements.registerTopic.run(topic, now);
    })();
  }

  async append(topic: string, messages: readonly LogMessage[]): Promise<LogPosition> {
    if (messages.length === 0) return this.endPosition(topic);
    const now = Date.now();
    const next = this.appendTx(
      topic,
      messages.map((message) => ({ key: message.key, raw: serialiseLogValue(message.value), timestamp: now })),
    );
    this.signals.emit(appendedEvent(topic));
    return { [PARTITION]: next };
  }

  async appendStored(topic: string, messages: readonly StoredMessage[]): Promise<LogPosition> {
    if (messages.length === 0) return this.endPosition(topic);
    const other = messages.find((message) => message.partition !== PARTITION);
    if (other) throw new Error(`the embedded log has one partition (${PARTITION}); a message names partition ${other.partition}`);
    const next = this.appendTx(topic, messages);
    this.signals.emit(appendedEvent(topic));
    return { [PARTITION]: next };
  }

  async listTopics(): Promise<string[]> {
    return this.statements.topics.all();
  }

  /**
   * Deletes the topics' rows in one transaction; `secure_delete` (set on every connection engram
   * opens) zeroes them in the pages, and a checkpoint then truncates the write-ahead log, so no
   * copy of a deleted message stays on disk.
   */
  async deleteTopics(topics: readonly string[]): Promise<void> {
    const running = consumersOf(this.db);
    for (const topic of topics) {
      for (const group of this.statements.groups.all(topic)) {
        if (running.has(consumerKey(topic, group)))
          throw new Error(`cannot delete topic "${topic}": a consumer of group "${group}" is running; stop it first`);
      }
    }
    immediate(this.db, () => {
      for (const topic of topics) {
        this.statements.deleteMessages.run(topic);
        this.statements.deleteGroups.run(topic);
        this.statements.deleteTopic.run(topic);
      }
    })();
    if (this.db.pragma('journal_mode', { simple: true }) === 'wal') this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async listGroups(topic: string, groupPrefix = ''): Promise<GroupInfo[]> {
    const running = consumersOf(this.db);
    return this.statements.groups
      .all(topic)
      .filter((group) => group.startsWith(groupPrefix))
      .map((group) => ({ group, running: running.has(consumerKey(topic, group)) }));
  }

  async deleteGroup(topic: string, group: string): Promise<void> {
    if (consumersOf(this.db).has(consumerKey(topic, group))) {
      throw new Error(`cannot delete group "${group}" of topic "${topic}": a consumer is running; stop it first`);
    }
    this.statements.deleteGroup.run(topic, group);
  }

  async subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
    const maxBatchSize = spec.maxBatchSize ?? this.options.maxBatchSize;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new Error(`maxBatchSize must be a positive integer, got ${maxBatchSize}`);
    }
    const running = consumersOf(this.db);
    const key = consumerKey(spec.topic, spec.group);
    if (running.has(key)) {
      throw new Error(`a consumer of topic "${spec.topic}" in group "${spec.group}" is already running in this process; stop it first`);
    }
    running.add(key);
    const consumer = new SqliteConsumer(
      spec.topic,
      spec.group,
      maxBatchSize,
      handler,
      this.options,
      this.signals,
      this.committedOffset(spec.topic, spec.group),
      (offsets) => this.statements.readBatch.all(spec.topic, offsets.from, offsets.limit),
      (next) => {
        this.statements.commit.run(spec.topic, spec.group, next, Date.now());
      },
      () => {
        running.delete(key);
        this.consumers.delete(consumer);
      },
    );
    this.consumers.add(consumer);
    consumer.start();
    return { stop: () => consumer.stop() };
  }

  async endPosition(topic: string): Promise<LogPosition> {
    return { [PARTITION]: this.statements.nextOffset.get(topic)?.next_offset ?? 0 };
  }

  async committedPosition(topic: string, group: string): Promise<LogPosition> {
    return { [PARTITION]: this.committedOffset(topic, group) };
  }

  async resetGroup(topic: string, group: string, target: ResetTarget): Promise<void> {
    if (consumersOf(this.db).has(consumerKey(topic, group))) {
      throw new Error(`cannot reset group "${group}" of topic "${topic}": a consumer is running; stop it first`);
    }
    let next: number;
    if (target.to === 'beginning') {
      next = 0;
    } else if (target.to === 'position') {
      next = target.position[PARTITION] ?? 0;
      const end = this.statements.nextOffset.get(topic)?.next_offset ?? 0;
      if (!Number.isInteger(next) || next < 0 || next > end)
        throw new Error(`cannot move group "${group}" of topic "${topic}" to offset ${next}: the topic holds offsets 0 to ${end}`);
    } else {
      next =
        this.statements.firstAtOrAfter.get(topic, target.timestamp)?.log_offset ?? this.statements.nextOffset.get(topic)?.next_offset ?? 0;
    }
    this.statements.commit.run(topic, group, next, Date.now());
  }

  /** Stops this log's consumers (each finishes and commits its batch). The shared connection stays open: its owner closes it. */
  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
  }

  private committedOffset(topic: string, group: string): number {
    return this.statements.committed.get(topic, group)?.next_offset ?? 0;
  }
}
