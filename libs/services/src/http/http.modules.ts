import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { HealthController } from './health.controller';
import { PipelineController } from './pipeline-status.controller';
import { RecallController } from '../recall/recall.controller';
import { TurnsController } from '../ingest/turns.controller';
import { UsersController } from '../users/users.controller';
import { MetricsController } from '../observability/metrics.controller';
import { Backpressure } from '../ingest/backpressure';
import { IngestService } from '../ingest/ingest.service';
import { RecallService } from '../recall/recall.service';
import { RecallAudit } from '../recall/recall-audit';
import { TenantGuard } from './tenancy';
import { ForgettingModule } from '../admin/forgetting/forgetting.job';
import { ExportController } from '../users/export.controller';
import { ForgettingController } from '../admin/forgetting/forgetting.controller';
import { ExportService } from '../users/export.service';
import { AdminRebuildsModule } from '../admin/rebuilds/rebuilds.controller';
import { AdminPipelineController } from '../admin/pipeline/pipeline.controller';
import { InspectorController } from './inspector.controller';
import { MemoryControlController } from '../users/memory-control.controller';
import { McpController } from '../mcp/mcp.controller';
import { MemoryControlService } from '../users/memory-control.service';

@Module({
  controllers: [HealthController, MetricsController, TurnsController, PipelineController],
  providers: [IngestService, Backpressure, { provide: APP_GUARD, useClass: TenantGuard }],
  exports: [IngestService],
})
export class GatewayHttpModule {}

@Module({
  imports: [ForgettingModule, AdminRebuildsModule],
  controllers: [
    HealthController,
    MetricsController,
    RecallController,
    UsersController,
    PipelineController,
    ExportController,
    ForgettingController,
    MemoryControlController,
    AdminPipelineController,
    InspectorController,
  ],
  providers: [
    RecallService,
    RecallAudit,
    IngestService,
    ExportService,
    MemoryControlService,
    { provide: APP_GUARD, useClass: TenantGuard },
  ],
  exports: [RecallService],
})
export class RecallHttpModule {}

/** The embedded server serves both sides on one port. */
@Module({
  imports: [ForgettingModule, AdminRebuildsModule],
  controllers: [
    HealthController,
    MetricsController,
    TurnsController,
    RecallController,
    UsersController,
    PipelineController,
    ExportController,
    ForgettingController,
    MemoryControlController,
    McpController,
    AdminPipelineController,
    InspectorController,
  ],
  providers: [
    IngestService,
    Backpressure,
    RecallService,
    RecallAudit,
    ExportService,
    MemoryControlService,
    { provide: APP_GUARD, useClass: TenantGuard },
  ],
  exports: [IngestService, RecallService],
})
export class AllHttpModule {}
