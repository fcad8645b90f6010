import { testLogVersions } from '@engram/testing';
import { MongoLogVersions } from './mongo-log-versions';
import { useTestDatabase } from './testing/test-database';

// One database per file, dropped afterwards (FerretDB from deploy/local unless MONGODB_URI says otherwise).
const openDb = useTestDatabase('log_versions');

testLogVersions({ open: async () => new MongoLogVersions(await openDb()) });
