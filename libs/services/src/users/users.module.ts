import { Module } from '@nestjs/common';
import { ForgettingModule } from '../admin/forgetting/forgetting.job';
import { IngestServiceModule } from '../ingest/ingest.module';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';
import { MemoryControlController } from './memory-control.controller';
import { MemoryControlService } from './memory-control.service';
import { UsersController } from './users.controller';

/**
 * /v1/users: a user's memories and turns, forgetting the user (through the ingest service's log),
 * export and import, and the per-memory commands (published by the forgetting module's command
 * publisher, the one every memory command goes through).
 */
@Module({
  imports: [IngestServiceModule, ForgettingModule],
  controllers: [UsersController, ExportController, MemoryControlController],
  providers: [ExportService, MemoryControlService],
})
export class UsersModule {}
