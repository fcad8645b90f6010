import 'reflect-metadata';
import { startApp } from '@engram/services/bootstrap';
import { GatewayAppModule } from './gateway.module';

startApp(GatewayAppModule.forRoot(), { http: true, stages: false }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
