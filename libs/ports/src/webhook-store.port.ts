import type { WebhookEventName } from '@engram/contracts';
import type { LogPosition } from './event-log.port';

/**
 * Webhook subscriptions and their deliveries (an outbox fed from memory.facts.v1), in the fact
 * store's database: SQLite embedded, MongoDB distributed. Instants are milliseconds since the epoch.
 *
 * Deliveries form one lane per subscription and user: only a lane's head (its pending delivery
 * earliest in the log) is ever due, so a user's changes reach a receiver in log order and a
 * failing one holds back that user's later ones, never another user's.
 */
export const WebhookStore = Symbol('WebhookStore');

/** `backfilling`: the log before `startPosition` is being read for it; nothing is sent until that is done. */
export type WebhookStatus = 'active' | 'backfilling' | 'disabled';

export interface WebhookSubscription {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly events: readonly WebhookEventName[];
  /** The HMAC key of its signatures. */
  readonly secret: string;
  readonly createdAt: number;
  /** Where its deliveries begin: the log's end when it was made (`now`), or the log's start (`beginning`, backfilled). */
  readonly from: 'now' | 'beginning';
  /** memory.facts.v1's end when it was made: the live consumer delivers from here, a backfill up to here. */
  readonly startPosition: LogPosition;
  readonly status: WebhookStatus;
  readonly disabledAt?: number;
  readonly disabledReason?: string;
}

export interface NewWebhookDelivery {
  /** One per subscription and log event (deterministic): enqueuing it again changes nothing. */
  readonly id: string;
  readonly subscriptionId: string;
  readonly tenantId: string;
  readonly userId: string;
  /** The log event's id: a delivery's id for its receiver. */
  readonly eventId: string;
  readonly event: WebhookEventName;
  readonly memoryId?: string;
  /** Where the event is in memory.facts.v1: a lane's order. */
  readonly partition: number;
  readonly offset: number;
  readonly recordedAt: string;
  /**
   * The event as the log stores it (its payload sealed with its user's data key, so forgetting
   * the user makes it unreadable here too); null when only ids may be sent (the user was forgotten).
   */
  readonly stored: string | null;
  readonly createdAt: number;
}

export interface WebhookDelivery extends NewWebhookDelivery {
  readonly status: 'pending' | 'delivered';
  /** Attempts made; while pending, each was a failure. */
  readonly attempts: number;
  readonly nextAttemptAt: number;
  /** A sender holds it until then (0: nobody). */
  readonly leaseUntil: number;
  readonly lastAttemptAt?: number;
  /** The receiver's HTTP status at the last attempt, when it answered. */
  readonly responseStatus?: number;
  /** Why the last attempt failed; absent once delivered. */
  readonly error?: string;
  readonly deliveredAt?: number;
}

export interface WebhookAttempt {
  readonly at: number;
  readonly delivered: boolean;
  readonly responseStatus?: number;
  readonly error?: string;
  /** When a failed delivery is due again. */
  readonly nextAttemptAt?: number;
}

export interface WebhookStore {
  addSubscription(subscription: WebhookSubscription): Promise<void>;
  /** A tenant's subscriptions, oldest first. */
  subscriptions(tenantId: string): Promise<WebhookSubscription[]>;
  subscription(tenantId: string, id: string): Promise<WebhookSubscription | undefined>;
  /** Every tenant's subscriptions that are not disabled: what the log is read for. */
  liveSubscriptions(): Promise<WebhookSubscription[]>;
  /** Deletes a subscription and its deliveries; false when the tenant has none by that id. */
  removeSubscription(tenantId: string, id: string): Promise<boolean>;
  /** A backfilled subscription starts sending (a no-op for any other status). */
  activate(id: string): Promise<void>;
  disable(id: string, at: number, reason: string): Promise<void>;

  /** Adds deliveries, due at once; one already known (by id) is left as it is. */
  enqueue(deliveries: readonly NewWebhookDelivery[]): Promise<void>;
  /**
   * The user was forgotten at `at` (their UserForgotten's place in the log): none of their pending
   * deliveries before it may carry content (`stored` → null). Later ones are a user who came back.
   */
  redactUser(tenantId: string, userId: string, at: { readonly partition: number; readonly offset: number }): Promise<void>;
  /**
   * Lane heads of active subscriptions that are due (`nextAttemptAt`) and not held by a sender
   * (`leaseUntil`) at `now`, the longest waiting first.
   */
  dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]>;
  /** Holds a pending delivery for one sender until `until`; false when it is delivered or held by another. */
  claim(id: string, now: number, until: number): Promise<boolean>;
  /** Records an attempt on a pending delivery and releases it: delivered (its content dropped), or due again at `nextAttemptAt`. */
  recordAttempt(id: string, attempt: WebhookAttempt): Promise<void>;
  /** A subscription's deliveries, the most recently created or attempted first. */
  deliveries(tenantId: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]>;
  /** Deletes deliveries delivered before `deliveredBefore`, and those of subscriptions no longer there; how many. */
  prune(deliveredBefore: number): Promise<number>;
}
