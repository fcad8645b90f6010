import { Module } from '@nestjs/common';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { TurnsController } from './turns.controller';

/** The ingest service alone: what other use cases need of it (forgetting a user writes to the turns log). */
@Module({ providers: [IngestService], exports: [IngestService] })
export class IngestServiceModule {}

/** POST /v1/turns: the turns controller, its backpressure, the ingest service. */
@Module({ imports: [IngestServiceModule], controllers: [TurnsController], providers: [Backpressure], exports: [IngestServiceModule] })
export class IngestModule {}
