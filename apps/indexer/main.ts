import 'reflect-metadata';
import { startApp } from '@engram/services/bootstrap';
import { IndexerAppModule } from './indexer.module';

startApp(IndexerAppModule.forRoot(), { http: 'health', stages: true }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
