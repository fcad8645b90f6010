import { Module } from '@nestjs/common';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import { TurnsController } from './turns.controller';

/** POST /v1/turns: the turns controller, its backpressure, the ingest service (also what the CLI calls). */
@Module({ controllers: [TurnsController], providers: [IngestService, Backpressure], exports: [IngestService] })
export class IngestModule {}
