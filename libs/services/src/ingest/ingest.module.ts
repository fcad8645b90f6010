import { Module } from '@nestjs/common';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { TurnsController } from './turns.controller';
import { TurnsService } from './turns.service';

/** The ingest service alone: what other use cases need of it (forgetting a user writes to the turns log). */
@Module({ providers: [IngestService], exports: [IngestService] })
export class IngestServiceModule {}

/** POST /v1/turns: the turns controller, its use case (backpressure, then the ingest service). */
@Module({
  imports: [IngestServiceModule],
  controllers: [TurnsController],
  providers: [Backpressure, TurnsService],
  exports: [IngestServiceModule],
})
export class IngestModule {}
