import { Module } from '@nestjs/common';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { TurnsController } from './turns.controller';
import { TurnsService } from './turns.service';

/** POST /v1/turns: the turns controller, its use case (backpressure, then the ingest service), the ingest service (also what the CLI calls). */
@Module({ controllers: [TurnsController], providers: [IngestService, Backpressure, TurnsService], exports: [IngestService] })
export class IngestModule {}
