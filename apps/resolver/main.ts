import 'reflect-metadata';
import { startApp } from '@engram/services/bootstrap';
import { ResolverAppModule } from './resolver.module';

startApp(ResolverAppModule.forRoot(), { http: 'health', stages: true }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
