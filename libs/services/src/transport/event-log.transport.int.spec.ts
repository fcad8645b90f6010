import { openSqliteDatabase, SqliteEventLog } from '@engram/adapters-sqlite';
import { deadLetterSuite } from './dead-letters.suite';

// The same suite runs on real Kafka in event-log.transport.infra.spec.ts.
deadLetterSuite('embedded SQLite log', async () => {
  // A paused stage's batch comes back quickly here (and its expected failures are not printed).
  const log = new SqliteEventLog(openSqliteDatabase(':memory:'), {
    pollIntervalMs: 5,
    retryDelayMs: 10,
    maxRetryDelayMs: 50,
    onHandlerError: () => undefined,
  });
  return { log, topicPrefix: '', cleanup: () => log.close() };
});
