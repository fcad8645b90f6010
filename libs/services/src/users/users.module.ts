import { Module } from '@nestjs/common';
import { ForgettingController } from '../forgetting/forgetting.controller';
import { ForgettingModule } from '../forgetting/forgetting.job';
import { IngestServiceModule } from '../ingest/ingest.module';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';
import { MemoryControlController } from './memory-control.controller';
import { MemoryControlService } from './memory-control.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';
import { ForgetUserService } from './forget-user.service';

/**
 * /v1/users: a user's memories and turns, forgetting the user (through the ingest service's log),
 * export and import, and the per-memory commands (published by the forgetting module's command
 * publisher, the one every memory command goes through); and /v1/forgetting, the tenant's sweep
 * of its users' memories on demand.
 */
@Module({
  imports: [IngestServiceModule, ForgettingModule],
  controllers: [UsersController, ExportController, MemoryControlController, ForgettingController],
  providers: [UsersService, ForgetUserService, ExportService, MemoryControlService],
})
export class UsersModule {}
