import 'reflect-metadata';
import { startApp } from '@engram/services/bootstrap';
import { FilterAppModule } from './filter.module';

startApp(FilterAppModule.forRoot(), { http: 'health', stages: true }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
