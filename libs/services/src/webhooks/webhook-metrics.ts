import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { EngramMetrics } from '../observability/metrics';

/** The webhooks' series, in the process's registry (`/metrics`). */
@Injectable()
export class WebhookMetrics {
  readonly enqueued: Counter<never>;
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly disabled: Counter<never>;
  readonly outboxLag: Gauge<never>;
  /** How far the outbox is behind memory.facts.v1, while it reads it (the outbox sets it); undefined: not reading. */
  outboxLagSource: () => Promise<number | undefined> = async () => undefined;

  constructor(metrics: EngramMetrics) {
    const registers = [metrics.registry];
    this.enqueued = new Counter({
      name: 'engram_webhook_deliveries_enqueued_total',
      help: 'Deliveries queued from memory.facts.v1 (one per matching subscription and event).',
      registers,
    });
    this.attempts = new Counter({
      name: 'engram_webhook_attempts_total',
      help: 'Delivery attempts, by outcome: delivered (a 2xx answer) or failed (any other answer, a timeout, no connection).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'engram_webhook_attempt_duration_seconds',
      help: 'How long a receiver took to answer a delivery (or to fail), by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.disabled = new Counter({
      name: 'engram_webhook_subscriptions_disabled_total',
      help: 'Subscriptions disabled because a delivery failed ENGRAM_WEBHOOK_MAX_FAILURES times in a row.',
      registers,
    });
    const lagOf = () => this.outboxLagSource();
    this.outboxLag = new Gauge({
      name: 'engram_webhook_outbox_lag',
      help: 'Events of memory.facts.v1 the webhook outbox has yet to read (collected on scrape; 0 while no webhook is live).',
      registers,
      async collect() {
        this.set((await lagOf()) ?? 0);
      },
    });
  }
}
