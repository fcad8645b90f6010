import { makeTempDir, testWebhookStore } from '@engram/testing';
import { openSqliteDatabase } from './sqlite-database';
import { SqliteWebhookStore } from './sqlite-webhook-store.adapter';

const dir = makeTempDir('engram-webhooks-');
const db = openSqliteDatabase(dir.file('engram.db'));

testWebhookStore(async () => new SqliteWebhookStore(db), {
  teardown: async () => {
    db.close();
    dir.remove();
  },
});
