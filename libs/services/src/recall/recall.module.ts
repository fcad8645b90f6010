import { Module } from '@nestjs/common';
import { RecallAudit } from './recall-audit';
import { RecallController } from './recall.controller';
import { RecallService } from './recall.service';
import { TimedRecallService } from './timed-recall.service';

/** POST /v1/recall: the controller, the service (also what MCP and the CLI call), its timing for the route, and its audit log. */
@Module({ controllers: [RecallController], providers: [RecallService, TimedRecallService, RecallAudit], exports: [RecallService] })
export class RecallModule {}
