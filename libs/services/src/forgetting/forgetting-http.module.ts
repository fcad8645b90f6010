import { Module } from '@nestjs/common';
import { ForgettingController } from './forgetting.controller';
import { ForgettingModule } from './forgetting.job';

/** POST /v1/forgetting/run: the tenant's sweep of its users' memories on demand. */
@Module({ imports: [ForgettingModule], controllers: [ForgettingController] })
export class ForgettingHttpModule {}
