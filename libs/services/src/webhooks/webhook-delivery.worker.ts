import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookOptions } from '@engram/config';
import { parseEvent, type MemoryDecision, type UserForgotten, type WebhookPayload } from '@engram/contracts';
import { redactedWebhookPayload, webhookGivesUp, webhookPayload, webhookRetryDelayMs } from '@engram/domain';
import { type WebhookDelivery, WebhookStore, type WebhookSubscription } from '@engram/ports';
import { DataKeyRing } from '../crypto/data-key-ring';
import { openStoredEvent, SHREDDED } from '../crypto/sealing-event-log';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookOutbox } from './webhook-outbox';
import { sendWebhook } from './webhook-sender';

/** Looks for due deliveries this often when there was nothing to do (the outbox wakes it sooner). */
const IDLE_MS = 250;
/** Reads the subscriptions (and lets the outbox follow them) this often. */
const SYNC_MS = 1000;
/** Delivered deliveries are listed for this long, then deleted. */
const DELIVERED_KEPT_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Sends the outbox's deliveries: the due lane heads (one per subscription and user, so each user's
 * changes arrive in log order), several lanes at once, each attempt leased so that two processes do
 * not send it together. A failure is retried with exponential backoff (ENGRAM_WEBHOOK_RETRY_*); a
 * delivery that fails ENGRAM_WEBHOOK_MAX_FAILURES times in a row disables its subscription.
 *
 * The content is read only now, from the event as the log stored it: once its user is forgotten
 * (the data key destroyed) it no longer opens, and the delivery carries ids and its type only.
 * Times are the wall clock's (not the injected Clock, which tests hold still): retries wait real time.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger(WebhookDeliveryWorker.name);
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private subscriptions = new Map<string, WebhookSubscription>();
  private lastSync = 0;
  private lastPrune = 0;
  private readonly stopping = new AbortController();

  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    @Inject(WebhookOptions) private readonly options: WebhookOptions,
    private readonly outbox: WebhookOutbox,
    private readonly keys: DataKeyRing,
    private readonly metrics: WebhookMetrics,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.outbox.onEnqueued = () => this.wakeUp();
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp();
    await this.loop;
  }

  private wakeUp(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.round();
      } catch (error) {
        this.log.warn({ error: String(error) }, 'webhook round failed; retrying');
      }
      if (!worked && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wakeUp(), IDLE_MS);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** One round: follow the subscriptions, prune now and then, send what is due. True when something was sent. */
  private async round(): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastSync >= SYNC_MS) await this.syncSubscriptions(now);
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.store.prune(now - DELIVERED_KEPT_MS);
    }
    if (this.subscriptions.size === 0) return false;
    const due = await this.store.dueDeliveries(now, this.options.concurrency);
    if (due.length === 0) return false;
    if (due.some((d) => !this.subscriptions.has(d.subscriptionId))) await this.syncSubscriptions(now);
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
    return true;
  }

  private async syncSubscriptions(now: number): Promise<void> {
    this.lastSync = now;
    const live = await this.store.liveSubscriptions();
    this.subscriptions = new Map(live.map((s) => [s.id, s]));
    await this.outbox.sync(live);
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const subscription = this.subscriptions.get(delivery.subscriptionId);
    if (!subscription || !this.running) return;
    const startedAt = Date.now();
    if (!(await this.store.claim(delivery.id, startedAt, startedAt + this.options.timeoutMs + 5_000))) return;
    const body = JSON.stringify(await this.payloadOf(delivery));
    const outcome = await sendWebhook({
      url: subscription.url,
      secret: subscription.secret,
      body,
      eventId: delivery.eventId,
      eventType: delivery.event,
      webhookId: subscription.id,
      timeoutMs: this.options.timeoutMs,
      signal: this.stopping.signal,
    });
    const at = Date.now();
    const label = { outcome: outcome.delivered ? 'delivered' : 'failed' };
    this.metrics.attempts.inc(label);
    this.metrics.attemptDuration.observe(label, (at - startedAt) / 1000);
    if (outcome.delivered) {
      await this.store.recordAttempt(delivery.id, { at, delivered: true, responseStatus: outcome.responseStatus });
      return;
    }
    const failures = delivery.attempts + 1;
    await this.store.recordAttempt(delivery.id, {
      at,
      delivered: false,
      responseStatus: outcome.responseStatus,
      error: outcome.error,
      nextAttemptAt: at + webhookRetryDelayMs(failures, { baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs }),
    });
    if (this.stopping.signal.aborted || !webhookGivesUp(failures, { maxFailures: this.options.maxFailures })) return;
    const reason = `delivery of event ${delivery.eventId} failed ${failures} times in a row; last: ${outcome.error ?? 'no answer'}`;
    await this.store.disable(subscription.id, at, reason);
    this.subscriptions.delete(subscription.id);
    this.metrics.disabled.inc();
    this.log.warn({ tenantId: subscription.tenantId, webhookId: subscription.id, reason }, 'webhook subscription disabled');
  }

  /** The body: the change as engram can still read it, else (its user forgotten) its ids and type. */
  private async payloadOf(delivery: WebhookDelivery): Promise<WebhookPayload> {
    const redacted = () =>
      redactedWebhookPayload({
        eventId: delivery.eventId,
        type: delivery.event,
        userId: delivery.userId,
        recordedAt: delivery.recordedAt,
        ...(delivery.memoryId === undefined ? {} : { memoryId: delivery.memoryId }),
      });
    if (delivery.stored === null) return redacted();
    try {
      const opened = await openStoredEvent(this.keys, JSON.parse(delivery.stored));
      if (opened === SHREDDED || opened === undefined) return redacted();
      return webhookPayload(parseEvent(opened) as MemoryDecision | UserForgotten);
    } catch (error) {
      this.log.warn(
        { webhookId: delivery.subscriptionId, eventId: delivery.eventId, reason: String(error) },
        'event unreadable: sent as ids',
      );
      return redacted();
    }
  }
}
