import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { ForgettingHttpModule } from './forgetting/forgetting-http.module';
import { IngestModule } from './ingest/ingest.module';
import { McpController } from './mcp/mcp.controller';
import { MetricsController } from './http/metrics.controller';
import { RecallModule } from './recall/recall.module';
import { UsersModule } from './users/users.module';
import { HealthController } from './http/health.controller';
import { InspectorController } from './http/inspector.controller';
import { PipelineController } from './http/pipeline-status.controller';
import { PipelineStatusService } from './http/pipeline-status.service';
import { TenantGuard } from './http/tenancy';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The HTTP apps are compositions of use-case modules (ingest/, recall/, users/, forgetting/, admin/): a new
 * endpoint goes into its use case's module and every app serving that use case has it.
 */

/** What every HTTP app serves and checks: health, metrics, pipeline status, the tenant guard. */
@Module({
  controllers: [HealthController, MetricsController, PipelineController],
  providers: [{ provide: APP_GUARD, useClass: TenantGuard }, PipelineStatusService],
})
export class HttpBaseModule {}

/** The gateway: ingest. */
@Module({ imports: [HttpBaseModule, IngestModule], exports: [IngestModule] })
export class GatewayHttpModule {}

/** The read side: recall, users, admin, webhooks, the inspector. */
@Module({
  imports: [HttpBaseModule, RecallModule, UsersModule, ForgettingHttpModule, AdminModule, WebhooksModule],
  controllers: [InspectorController],
  exports: [RecallModule],
})
export class RecallHttpModule {}

/** The embedded server serves both sides on one port, and MCP. */
@Module({
  imports: [HttpBaseModule, IngestModule, RecallModule, UsersModule, ForgettingHttpModule, AdminModule, WebhooksModule],
  controllers: [McpController, InspectorController],
  exports: [IngestModule, RecallModule],
})
export class AllHttpModule {}
