import { testKeyStore } from '@engram/testing';
import { MongoKeyStore } from './mongo-key-store.adapter';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('keys');

testKeyStore({
  open: async (master, previous) => new MongoKeyStore(await openDb(), master, previous),
  dump: async () => JSON.stringify(await (await openDb()).collection('data_keys').find({}).toArray()),
});
