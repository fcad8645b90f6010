import { Module } from '@nestjs/common';
import { AdminPipelineController } from './pipeline/pipeline.controller';
import { AdminPipelineService } from './pipeline/pipeline.service';
import { AdminRebuildsModule } from './rebuilds/rebuilds.controller';

/** /v1/admin, the deployment's routes (the admin key: `AdminRoute`): online rebuilds, projection versions and dead letters. */
@Module({ imports: [AdminRebuildsModule], controllers: [AdminPipelineController], providers: [AdminPipelineService] })
export class AdminModule {}
