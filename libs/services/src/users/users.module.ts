import { Module } from '@nestjs/common';
import { MemoryCommandPublisher } from '../pipeline/memory-commands';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';
import { MemoryControlController } from './memory-control.controller';
import { MemoryControlService } from './memory-control.service';
import { UserErasure } from './user-erasure.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';
import { ForgetUserService } from './forget-user.service';

/**
 * /v1/users: a user's memories and turns, forgetting the user (UserErasure writes the tombstone),
 * export and import, and the per-memory commands (published through the resolver's input topic,
 * as every memory command is: MemoryCommandPublisher).
 */
@Module({
  controllers: [UsersController, ExportController, MemoryControlController],
  providers: [UsersService, ForgetUserService, ExportService, MemoryControlService, MemoryCommandPublisher, UserErasure],
})
export class UsersModule {}
