import { testWebhookStore } from '@engram/testing';
import { MongoWebhookStore } from './mongo-webhook-store.adapter';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('webhooks');

testWebhookStore(async () => MongoWebhookStore.open(await openDb()));
