import 'reflect-metadata';
import { startApp } from '@engram/services/bootstrap';
import { RecallAppModule } from './recall.module';

startApp(RecallAppModule.forRoot(), { http: true, stages: false }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
