import { Injectable } from '@nestjs/common';
import { EngramMetrics } from '../observability/metrics';
import type { RecallDto, RecallResponse } from './recall.dto';
import { RecallService } from './recall.service';

/**
 * `POST /v1/recall`: recall, timed into `engram_recall_duration_seconds` (recall latency inside the
 * service, refusals included, validation of the body not). MCP's tools and the CLI call
 * `RecallService` itself.
 */
@Injectable()
export class TimedRecallService {
  constructor(
    private readonly recallService: RecallService,
    private readonly metrics: EngramMetrics,
  ) {}

  async recall(tenantId: string, request: RecallDto): Promise<RecallResponse> {
    const done = this.metrics.recallDuration.startTimer();
    try {
      return await this.recallService.recall(tenantId, request);
    } finally {
      done();
    }
  }
}
