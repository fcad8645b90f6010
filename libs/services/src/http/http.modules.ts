import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { HealthController } from './health.controller';
import { PipelineController } from './pipeline-status.controller';
import { RecallController } from './recall.controller';
import { TurnsController } from './turns.controller';
import { UsersController } from './users.controller';
import { MetricsController } from '../observability/metrics.controller';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { RecallService } from './recall.service';
import { RecallAudit } from './recall-audit';
import { TenantGuard } from './tenancy';
import { ForgettingModule } from '../pipeline/forgetting.job';
import { ExportController, ForgettingController } from './export.controller';
import { ExportService } from './export.service';
import { AdminRebuildsModule } from './admin-rebuilds.controller';
import { AdminPipelineController } from './admin-pipeline.controller';
import { InspectorController } from './inspector.controller';
import { MemoryControlController } from './memory-control.controller';
import { McpController } from '../mcp/mcp.controller';
import { MemoryControlService } from './memory-control.service';

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
