import { Module } from '@nestjs/common';
import { ForgettingController } from './forgetting/forgetting.controller';
import { ForgettingModule } from './forgetting/forgetting.job';
import { AdminPipelineController } from './pipeline/pipeline.controller';
import { AdminRebuildsModule } from './rebuilds/rebuilds.controller';

/** /v1/admin: forgetting runs, online rebuilds, projection versions and dead letters. */
@Module({ imports: [ForgettingModule, AdminRebuildsModule], controllers: [ForgettingController, AdminPipelineController] })
export class AdminModule {}
