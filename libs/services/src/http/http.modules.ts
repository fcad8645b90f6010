import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { HealthController, PipelineController, RecallController, TurnsController, UsersController } from './controllers';
import { IngestService } from './ingest.service';
import { RecallService } from './recall.service';
import { TenantGuard } from './tenancy';

@Module({
  controllers: [HealthController, TurnsController, PipelineController],
  providers: [IngestService, { provide: APP_GUARD, useClass: TenantGuard }],
  exports: [IngestService],
})
export class GatewayHttpModule {}

@Module({
  controllers: [HealthController, RecallController, UsersController, PipelineController],
  providers: [RecallService, IngestService, { provide: APP_GUARD, useClass: TenantGuard }],
  exports: [RecallService],
})
export class RecallHttpModule {}

/** The embedded server serves both sides on one port. */
@Module({
  controllers: [HealthController, TurnsController, RecallController, UsersController, PipelineController],
  providers: [IngestService, RecallService, { provide: APP_GUARD, useClass: TenantGuard }],
  exports: [IngestService, RecallService],
})
export class AllHttpModule {}
