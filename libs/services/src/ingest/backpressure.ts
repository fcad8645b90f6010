import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { BackpressureOptions } from '@engram/config';
import { Clock } from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';
import { PipelineProgress } from '../pipeline/pipeline-progress';

/** 429 with a Retry-After header (seconds), set by the exception filter. */
export class TooManyRequestsException extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super({ error: 'Too Many Requests', message: [message], fields: [] }, HttpStatus.TOO_MANY_REQUESTS);
  }
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Protects the pipeline: ingest is refused with 429 while the read path lags
 * more than ENGRAM_MAX_PENDING events, or when a tenant exceeds its sustained
 * rate (token bucket, ENGRAM_TENANT_RATE_LIMIT turns/s, bursts of 10 s worth).
 */
@Injectable()
export class Backpressure {
  private readonly buckets = new Map<string, Bucket>();
  private pendingCache = { value: 0, atMs: -Infinity };

  constructor(
    @Inject(BackpressureOptions) private readonly options: BackpressureOptions,
    private readonly progress: PipelineProgress,
    private readonly metrics: EngramMetrics,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async admit(tenantId: string, turns: number): Promise<void> {
    await this.checkLag();
    this.takeTokens(tenantId, turns);
  }

  private async checkLag(): Promise<void> {
    const max = this.options.maxPending;
    if (max === 0) return;
    const now = Date.now();
    // Lag costs a few queries (admin calls on Kafka): measure at most every 250 ms.
    if (now - this.pendingCache.atMs > 250) this.pendingCache = { value: await this.progress.pending(), atMs: now };
    if (this.pendingCache.value > max) {
      this.metrics.throttled.inc({ reason: 'lag' });
      throw new TooManyRequestsException(`the pipeline is ${this.pendingCache.value} events behind (limit ${max}); retry later`, 1);
    }
  }

  private takeTokens(tenantId: string, turns: number): void {
    const rate = this.options.tenantRateLimit;
    if (rate === 0) return;
    const capacity = rate * 10;
    const nowMs = this.clock.now().getTime();
    const bucket = this.buckets.get(tenantId) ?? { tokens: capacity, updatedMs: nowMs };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * rate);
    bucket.updatedMs = nowMs;
    this.buckets.set(tenantId, bucket);
    if (turns > bucket.tokens) {
      this.metrics.throttled.inc({ reason: 'rate' });
      const waitSeconds = Math.ceil((Math.min(turns, capacity) - bucket.tokens) / rate);
      throw new TooManyRequestsException(`tenant rate limit of ${rate} turns/s exceeded; retry later`, Math.max(1, waitSeconds));
    }
    bucket.tokens -= turns;
  }
}
