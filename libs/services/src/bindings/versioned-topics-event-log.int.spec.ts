import { openSqliteDatabase, SqliteEventLog, SqliteLogVersions } from '@engram/adapters-sqlite';
import type { ConsumedMessage, LogMigration } from '@engram/ports';
import { eventually, makeTempDir } from '@engram/testing';
import { EventLogUnavailable, VersionedTopicsEventLog } from './versioned-topics-event-log';

const migration: LogMigration = {
  runId: 'run-1',
  from: 2,
  to: 3,
  phase: 'copying',
  startedAt: '2026-12-01T09:00:00.000Z',
  owner: { host: 'h', pid: 1 },
  heartbeatAt: '2026-12-01T09:00:00.000Z',
};

describe('VersionedTopicsEventLog', () => {
  const dir = makeTempDir('engram-versioned-');
  const db = openSqliteDatabase(dir.file('engram.db'));
  const stored = new SqliteEventLog(db, { onHandlerError: () => undefined });
  const versions = new SqliteLogVersions(db);
  let clock = 0;
  const open = () => new VersionedTopicsEventLog(stored, versions, { maxAgeMs: 1000, now: () => clock });
  afterAll(() => {
    db.close();
    dir.remove();
  });

  it('maps every topic to the version the log is at, and hands back the plain names', async () => {
    expect(await versions.replace(0, { version: 2 })).toBe(true);
    const log = open();
    await log.append('memory.turns.v1', [{ key: 'a:u', value: { n: 1 } }]);
    expect(await stored.listTopics()).toEqual(['memory.turns.v1.log2']);
    expect(await log.listTopics()).toEqual(['memory.turns.v1']);
    expect(await log.endPosition('memory.turns.v1')).toEqual({ 0: 1 });

    const got: ConsumedMessage[] = [];
    const subscription = await log.subscribe({ topic: 'memory.turns.v1', group: 'filter' }, async (batch) => {
      got.push(...batch);
    });
    await eventually(() => got.length === 1, 'the message');
    await subscription.stop();
    expect(got[0]).toMatchObject({ topic: 'memory.turns.v1', value: { n: 1 } });
    expect(await stored.committedPosition('memory.turns.v1.log2', 'filter')).toEqual({ 0: 1 });
    expect(await log.listGroups('memory.turns.v1')).toEqual([{ group: 'filter', running: false }]);
  });

  it('refuses to write while a migration copies the log (once its last look is old), and for good once the log moved on', async () => {
    const log = open();
    await log.append('memory.turns.v1', [{ key: 'a:u', value: { n: 2 } }]);
    const state = await versions.read();
    expect(await versions.replace(state.revision, { version: 2, migration })).toBe(true);

    // Within maxAgeMs the process has not looked again; after it, writes wait for the migration.
    await log.append('memory.turns.v1', [{ key: 'a:u', value: { n: 3 } }]);
    clock += 1000;
    await expect(log.append('memory.turns.v1', [{ key: 'a:u', value: { n: 4 } }])).rejects.toThrow(EventLogUnavailable);
    await expect(log.ensureTopics(['memory.screened.v1'])).rejects.toThrow(/being sealed into version 3 by engram encrypt-log \(run run-1/);
    await expect(log.subscribe({ topic: 'memory.turns.v1', group: 'late' }, async () => undefined)).rejects.toThrow(EventLogUnavailable);
    expect(await log.endPosition('memory.turns.v1')).toEqual({ 0: 3 }); // reading goes on

    const during = await versions.read();
    expect(await versions.replace(during.revision, { version: 3, migration: { ...migration, phase: 'switched' } })).toBe(true);
    clock += 1000;
    await expect(log.append('memory.turns.v1', [{ key: 'a:u', value: { n: 5 } }])).rejects.toThrow(/moved to version 3 .* restart it/);
    // A process started now uses version 3, even before the old topics are gone.
    const restarted = open();
    await restarted.append('memory.turns.v1', [{ key: 'a:u', value: { n: 1 } }]);
    expect(await stored.endPosition('memory.turns.v1.log3')).toEqual({ 0: 1 });
    const error = await log.append('memory.turns.v1', []).catch((e: unknown) => e);
    expect((error as EventLogUnavailable).getStatus()).toBe(503);
  });
});
