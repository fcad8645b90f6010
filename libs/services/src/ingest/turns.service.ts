import { Injectable } from '@nestjs/common';
import { Backpressure } from './backpressure';
import { IngestService } from './ingest.service';
import type { PostTurnsDto, PostTurnsResponse } from './turns.dto';

/**
 * `POST /v1/turns`: admitted by backpressure (429 while the read path lags or the tenant is over
 * its rate), then ingested. The CLI ingests through `IngestService` directly, as it always did.
 */
@Injectable()
export class TurnsService {
  constructor(
    private readonly ingest: IngestService,
    private readonly backpressure: Backpressure,
  ) {}

  async record(tenantId: string, request: PostTurnsDto): Promise<PostTurnsResponse> {
    await this.backpressure.admit(tenantId, request.turns.length);
    return this.ingest.ingest(tenantId, request);
  }
}
