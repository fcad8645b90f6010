import { openSqliteDatabase, SqliteEventLog } from '@engram/adapters-sqlite';
import { deadLetterSuite } from './dead-letters.suite';

// The same suite runs on real Kafka in event-log.transport.infra.spec.ts.
deadLetterSuite('embedded SQLite log', async () => {
  const log = new SqliteEventLog(openSqliteDatabase(':memory:'), { pollIntervalMs: 5 });
  return { log, topicPrefix: '', cleanup: () => log.close() };
});
