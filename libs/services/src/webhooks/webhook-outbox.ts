import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { PipelineOptions } from '@engram/config';
import { parseEvent, Topics, webhookEventOf, type WebhookEventName } from '@engram/contracts';
import {
  type ConsumedMessage,
  EventLog,
  lag,
  type LogPosition,
  type NewWebhookDelivery,
  reached,
  type Subscription,
  WebhookStore,
  type WebhookSubscription,
} from '@engram/ports';
import { type EventShape, isEventShaped } from '../crypto/sealing-event-log';
import { EventPublisher } from '../pipeline/event-publisher';
import { WebhookMetrics } from './webhook-metrics';

/** A memory change as the outbox reads it off the log: the envelope, and what a delivery keeps. */
interface Change {
  readonly eventId: string;
  readonly name: WebhookEventName;
  readonly tenantId: string;
  readonly userId: string;
  readonly recordedAt: string;
  readonly memoryId?: string;
  /** The event as stored (its payload sealed), or null when only its ids can be sent. */
  readonly stored: string | null;
}

type Wanted = (subscription: WebhookSubscription, message: ConsumedMessage) => boolean;

/**
 * The deliveries' outbox, fed from memory.facts.v1: a consumer group of its own (`webhooks`), so
 * no rebuild or reprocess (which read with groups of theirs, and never write this topic) sends
 * anything again. Each change becomes one delivery per subscription of its tenant that wants its
 * type and starts at or before its place in the log; a UserForgotten also strips the user's earlier
 * pending deliveries of content. The log is read only while some subscription is live, from the
 * earliest place one starts at: an engram without webhooks pays nothing for them.
 *
 * A subscription made `from: beginning` is backfilled by a group of its own (`webhooks-backfill.<id>`)
 * reading the log up to its start, and only then starts sending, so each user's order holds.
 */
@Injectable()
export class WebhookOutbox implements BeforeApplicationShutdown {
  static readonly GROUP = 'webhooks';
  private readonly log = new Logger(WebhookOutbox.name);
  private live: Subscription | null = null;
  private readonly backfills = new Map<string, { stop(): Promise<void> }>();
  private stopping = false;
  /** Called after deliveries were queued: the worker in this process wakes at once. */
  onEnqueued: () => void = () => undefined;

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(WebhookStore) private readonly store: WebhookStore,
    @Inject(PipelineOptions) private readonly pipeline: PipelineOptions,
    private readonly publisher: EventPublisher,
    private readonly metrics: WebhookMetrics,
  ) {
    metrics.outboxLagSource = async () => {
      if (!this.live) return undefined;
      const topic = this.topic;
      const [end, committed] = await Promise.all([
        this.eventLog.endPosition(topic),
        this.eventLog.committedPosition(topic, WebhookOutbox.GROUP),
      ]);
      return lag(end, committed);
    };
  }

  private get topic(): string {
    return this.publisher.topic(Topics.facts);
  }

  /** Follows the subscriptions as they are now: reads the log while any is live, backfills those that ask. */
  async sync(live: readonly WebhookSubscription[]): Promise<void> {
    if (this.stopping) return;
    if (live.length === 0) {
      if (this.live) this.log.log('no webhook subscriptions left: the outbox stops reading the log');
      await this.stopLive();
      return;
    }
    if (!this.live) await this.startLive(live);
    for (const subscription of live) {
      if (subscription.status === 'backfilling' && !this.backfills.has(subscription.id)) this.startBackfill(subscription);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.stopLive(), ...[...this.backfills.values()].map((b) => b.stop())]);
    this.backfills.clear();
  }

  private async startLive(live: readonly WebhookSubscription[]): Promise<void> {
    const topic = this.topic;
    await this.eventLog.ensureTopics([topic]);
    await this.skipToEarliestStart(topic, live);
    this.live = await this.eventLog.subscribe(
      { topic, group: WebhookOutbox.GROUP, maxBatchSize: this.pipeline.batchSize },
      async (messages) => {
        // Read for every batch, never cached: a subscription made before an event was appended sees it.
        const subscriptions = await this.store.liveSubscriptions();
        await this.project(messages, subscriptions, (s, m) => m.offset >= (s.startPosition[m.partition] ?? 0));
      },
    );
    this.log.log({ subscriptions: live.length }, 'the webhook outbox reads memory.facts.v1');
  }

  /**
   * No live subscription wants anything before its start, so the group may move up to the
   * earliest start (never back): after a time without subscriptions, nothing is read for nobody.
   */
  private async skipToEarliestStart(topic: string, live: readonly WebhookSubscription[]): Promise<void> {
    const [committed, end] = await Promise.all([
      this.eventLog.committedPosition(topic, WebhookOutbox.GROUP),
      this.eventLog.endPosition(topic),
    ]);
    const target: Record<number, number> = {};
    let moves = false;
    for (const key of Object.keys(end)) {
      const partition = Number(key);
      const earliest = Math.min(...live.map((s) => s.startPosition[partition] ?? 0));
      target[partition] = Math.max(committed[partition] ?? 0, earliest);
      if (target[partition] > (committed[partition] ?? 0)) moves = true;
    }
    if (!moves) return;
    try {
      await this.eventLog.resetGroup(topic, WebhookOutbox.GROUP, { to: 'position', position: target });
    } catch (error) {
      // Another process runs the group (distributed, several indexers): it keeps the position; read from there.
      this.log.debug({ error: String(error) }, 'webhook outbox position left as it is');
    }
  }

  private async stopLive(): Promise<void> {
    const live = this.live;
    this.live = null;
    await live?.stop();
  }

  private startBackfill(subscription: WebhookSubscription): void {
    const topic = this.topic;
    const group = `webhooks-backfill.${subscription.id}`;
    const reader = readUpTo(this.eventLog, topic, group, subscription.startPosition, async (messages) => {
      // A subscription deleted meanwhile needs nothing more.
      if (!(await this.store.subscription(subscription.tenantId, subscription.id))) return 'stop';
      await this.project(messages, [subscription], (s, m) => m.offset < (s.startPosition[m.partition] ?? 0));
      return 'more';
    });
    this.backfills.set(subscription.id, reader);
    reader.done
      .then(async (finished) => {
        if (!finished) return;
        await this.eventLog.deleteGroup(topic, group);
        await this.store.activate(subscription.id);
        this.log.log({ webhookId: subscription.id }, 'webhook backfilled: it starts sending');
        this.onEnqueued();
      })
      .catch((error: unknown) => this.log.warn({ webhookId: subscription.id, error: String(error) }, 'webhook backfill failed; retrying'))
      .finally(() => this.backfills.delete(subscription.id));
  }

  /** Queues the deliveries of a batch, in log order; a UserForgotten redacts what precedes it. */
  private async project(
    messages: readonly ConsumedMessage[],
    subscriptions: readonly WebhookSubscription[],
    wanted: Wanted,
  ): Promise<void> {
    let queued: NewWebhookDelivery[] = [];
    const flush = async () => {
      if (queued.length === 0) return;
      await this.store.enqueue(queued);
      this.metrics.enqueued.inc(queued.length);
      queued = [];
    };
    const now = Date.now();
    for (const message of messages) {
      const value = message.value;
      if (!isEventShaped(value)) continue;
      const name = webhookEventOf(value.type);
      if (!name) continue;
      const tenants = subscriptions.filter((s) => s.tenantId === value.tenantId);
      if (value.type === 'UserForgotten' && tenants.length > 0) {
        await flush();
        await this.store.redactUser(value.tenantId, value.userId, { partition: message.partition, offset: message.offset });
      }
      // Only what some subscription wants is validated and kept.
      const interested = tenants.filter((s) => s.events.includes(name) && wanted(s, message));
      const change = interested.length > 0 ? this.changeOf(message, value, name) : undefined;
      if (!change) continue;
      for (const s of interested) {
        queued.push({
          id: `${s.id}:${change.eventId}`,
          subscriptionId: s.id,
          tenantId: change.tenantId,
          userId: change.userId,
          eventId: change.eventId,
          event: name,
          ...(change.memoryId === undefined ? {} : { memoryId: change.memoryId }),
          partition: message.partition,
          offset: message.offset,
          recordedAt: change.recordedAt,
          stored: change.stored,
          createdAt: now,
        });
      }
    }
    await flush();
    if (subscriptions.length > 0) this.onEnqueued();
  }

  /**
   * What a delivery keeps of a message. A shredded one (its user forgotten since) still has its
   * envelope: it is delivered as ids. One that fails validation is skipped: the indexer reading the
   * same topic dead-letters it.
   */
  private changeOf(message: ConsumedMessage, value: EventShape, name: WebhookEventName): Change | undefined {
    const envelope = { eventId: value.eventId, tenantId: value.tenantId, userId: value.userId, name };
    if (message.shredded) {
      const recordedAt = (value as { recordedAt?: unknown }).recordedAt;
      return { ...envelope, recordedAt: typeof recordedAt === 'string' ? recordedAt : '', stored: null };
    }
    try {
      const event = parseEvent(value);
      const memoryId = 'memory' in event.payload ? event.payload.memory.memoryId : undefined;
      return { ...envelope, recordedAt: event.recordedAt, ...(memoryId === undefined ? {} : { memoryId }), stored: message.raw };
    } catch (error) {
      this.log.warn({ offset: message.offset, partition: message.partition, reason: String(error) }, 'skipping an invalid event');
      return undefined;
    }
  }
}

/**
 * Reads a topic with `group` from its position up to `end`, handing over the messages before it;
 * like transport's consumeUpTo, but it can be stopped (the process is stopping, or the handler says
 * `stop`). `done` resolves true once everything before `end` was handled, false when stopped.
 */
function readUpTo(
  eventLog: EventLog,
  topic: string,
  group: string,
  end: LogPosition,
  onBatch: (messages: readonly ConsumedMessage[]) => Promise<'more' | 'stop'>,
): { readonly done: Promise<boolean>; stop(): Promise<void> } {
  let subscription: Subscription | null = null;
  let stopped = false;
  let settle!: (finished: boolean) => void;
  const settled = new Promise<boolean>((resolve) => (settle = resolve));
  const done = (async () => {
    if (reached(await eventLog.committedPosition(topic, group), end)) return true;
    subscription = await eventLog.subscribe({ topic, group }, async (messages) => {
      if (stopped) return;
      if ((await onBatch(messages.filter((m) => m.offset < (end[m.partition] ?? 0)))) === 'stop') {
        stopped = true;
        settle(false);
        return;
      }
      const seen: Record<number, number> = {};
      for (const m of messages) seen[m.partition] = Math.max(seen[m.partition] ?? 0, m.offset + 1);
      if (reached({ ...(await eventLog.committedPosition(topic, group)), ...seen }, end)) settle(true);
    });
    if (stopped) settle(false);
    const finished = await settled;
    await subscription.stop();
    return finished;
  })();
  return {
    done,
    stop: async () => {
      stopped = true;
      settle(false);
      await done.catch(() => undefined);
    },
  };
}
