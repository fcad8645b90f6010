/*
 * Webhook subscriptions and their outbox (distributed), in the fact store's database.
 *
 * Portability (mongo-common.ts): finds with sort/limit, `distinct`, single-document conditional
 * updates, updateMany/deleteMany; no aggregation. So a lane's head is read lane by lane: the users
 * with pending deliveries of each active subscription (`distinct`), then each one's earliest.
 * That is one query per lane with something pending, which is what a sender wants to see anyway.
 * A lease is a conditional update: atomic on MongoDB; on FerretDB two senders racing for one
 * delivery may both win now and then (concurrent conditional updates of one document are not
 * atomic there), which at-least-once delivery allows.
 */
import type { WebhookEventName } from '@engram/contracts';
import type {
  LogPosition,
  NewWebhookDelivery,
  WebhookAttempt,
  WebhookDelivery,
  WebhookStatus,
  WebhookStore,
  WebhookSubscription,
} from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { DEFAULT_WRITE_CONCURRENCY, forEachLimit, isOnlyDuplicateKeyErrors } from './mongo-common';

interface SubscriptionDocument {
  _id: string;
  tenantId: string;
  url: string;
  events: WebhookEventName[];
  secret: string;
  createdAt: number;
  from: 'now' | 'beginning';
  startPosition: LogPosition;
  status: WebhookStatus;
  disabledAt?: number;
  disabledReason?: string;
}

interface DeliveryDocument {
  _id: string;
  subscriptionId: string;
  tenantId: string;
  userId: string;
  eventId: string;
  event: WebhookEventName;
  memoryId?: string;
  partition: number;
  offset: number;
  recordedAt: string;
  stored: string | null;
  createdAt: number;
  status: 'pending' | 'delivered';
  attempts: number;
  nextAttemptAt: number;
  leaseUntil: number;
  lastAttemptAt?: number;
  responseStatus?: number;
  error?: string;
  deliveredAt?: number;
  /** The later of creation and the last attempt: the order deliveries are listed in. */
  activityAt: number;
}

export class MongoWebhookStore implements WebhookStore {
  readonly subscriptionsCollection: Collection<SubscriptionDocument>;
  readonly deliveriesCollection: Collection<DeliveryDocument>;

  constructor(db: Db) {
    this.subscriptionsCollection = db.collection<SubscriptionDocument>('webhook_subscriptions');
    this.deliveriesCollection = db.collection<DeliveryDocument>('webhook_deliveries');
  }

  /** Creates the store and its indexes (idempotent; call once at start). */
  static async open(db: Db): Promise<MongoWebhookStore> {
    const store = new MongoWebhookStore(db);
    await store.subscriptionsCollection.createIndex({ tenantId: 1, createdAt: 1 }, { name: 'tenant_created' });
    await store.deliveriesCollection.createIndex({ subscriptionId: 1, userId: 1, status: 1, partition: 1, offset: 1 }, { name: 'lane' });
    await store.deliveriesCollection.createIndex({ tenantId: 1, userId: 1, status: 1 }, { name: 'tenant_user' });
    await store.deliveriesCollection.createIndex({ subscriptionId: 1, activityAt: -1 }, { name: 'activity' });
    await store.deliveriesCollection.createIndex({ status: 1, deliveredAt: 1 }, { name: 'delivered' });
    return store;
  }

  async addSubscription(s: WebhookSubscription): Promise<void> {
    const { id, ...rest } = s;
    await this.subscriptionsCollection.insertOne(
      withoutUndefined({ _id: id, ...rest, events: [...rest.events], startPosition: { ...rest.startPosition } }),
    );
  }

  async subscriptions(tenantId: string): Promise<WebhookSubscription[]> {
    const documents = await this.subscriptionsCollection.find({ tenantId }).sort({ createdAt: 1, _id: 1 }).toArray();
    return documents.map(subscriptionOf);
  }

  async subscription(tenantId: string, id: string): Promise<WebhookSubscription | undefined> {
    const document = await this.subscriptionsCollection.findOne({ _id: id, tenantId });
    return document ? subscriptionOf(document) : undefined;
  }

  async liveSubscriptions(): Promise<WebhookSubscription[]> {
    const documents = await this.subscriptionsCollection
      .find({ status: { $in: ['active', 'backfilling'] } })
      .sort({ createdAt: 1, _id: 1 })
      .toArray();
    return documents.map(subscriptionOf);
  }

  async removeSubscription(tenantId: string, id: string): Promise<boolean> {
    const { deletedCount } = await this.subscriptionsCollection.deleteOne({ _id: id, tenantId });
    if (deletedCount === 0) return false;
    await this.deliveriesCollection.deleteMany({ subscriptionId: id });
    return true;
  }

  async activate(id: string): Promise<void> {
    await this.subscriptionsCollection.updateOne({ _id: id, status: 'backfilling' }, { $set: { status: 'active' } });
  }

  async disable(id: string, at: number, reason: string): Promise<void> {
    await this.subscriptionsCollection.updateOne({ _id: id }, { $set: { status: 'disabled', disabledAt: at, disabledReason: reason } });
  }

  async enqueue(deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const documents = deliveries.map(({ id, ...d }): DeliveryDocument =>
      withoutUndefined({
        _id: id,
        ...d,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: d.createdAt,
        leaseUntil: 0,
        activityAt: d.createdAt,
      }),
    );
    try {
      await this.deliveriesCollection.insertMany(documents, { ordered: false });
    } catch (error) {
      // Known deliveries (a replayed batch) stay as they are; every other one was written.
      if (!isOnlyDuplicateKeyErrors(error)) throw error;
    }
  }

  async redactUser(tenantId: string, userId: string, at: { readonly partition: number; readonly offset: number }): Promise<void> {
    await this.deliveriesCollection.updateMany(
      { tenantId, userId, status: 'pending', partition: at.partition, offset: { $lt: at.offset } },
      { $set: { stored: null } },
    );
  }

  async dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]> {
    const heads: DeliveryDocument[] = [];
    const active = await this.subscriptionsCollection.find({ status: 'active' }).toArray();
    for (const subscription of active) {
      const users = (await this.deliveriesCollection.distinct('userId', {
        subscriptionId: subscription._id,
        status: 'pending',
      })) as string[];
      await forEachLimit(users, DEFAULT_WRITE_CONCURRENCY, async (userId) => {
        const [head] = await this.deliveriesCollection
          .find({ subscriptionId: subscription._id, userId, status: 'pending' })
          .sort({ partition: 1, offset: 1 })
          .limit(1)
          .toArray();
        if (head && head.nextAttemptAt <= now && head.leaseUntil <= now) heads.push(head);
      });
    }
    heads.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.offset - b.offset || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    return heads.slice(0, Math.max(0, Math.floor(limit))).map(deliveryOf);
  }

  async claim(id: string, now: number, until: number): Promise<boolean> {
    const { modifiedCount } = await this.deliveriesCollection.updateOne(
      { _id: id, status: 'pending', leaseUntil: { $lte: now } },
      { $set: { leaseUntil: until } },
    );
    return modifiedCount === 1;
  }

  async recordAttempt(id: string, attempt: WebhookAttempt): Promise<void> {
    const status = attempt.responseStatus === undefined ? { $unset: { responseStatus: '' as const } } : {};
    if (attempt.delivered) {
      await this.deliveriesCollection.updateOne(
        { _id: id, status: 'pending' },
        {
          $inc: { attempts: 1 },
          $set: {
            status: 'delivered',
            stored: null,
            deliveredAt: attempt.at,
            lastAttemptAt: attempt.at,
            activityAt: attempt.at,
            leaseUntil: 0,
            ...(attempt.responseStatus === undefined ? {} : { responseStatus: attempt.responseStatus }),
          },
          $unset: { error: '', ...status.$unset },
        },
      );
      return;
    }
    await this.deliveriesCollection.updateOne(
      { _id: id, status: 'pending' },
      {
        $inc: { attempts: 1 },
        $set: {
          lastAttemptAt: attempt.at,
          activityAt: attempt.at,
          nextAttemptAt: attempt.nextAttemptAt ?? attempt.at,
          leaseUntil: 0,
          ...(attempt.responseStatus === undefined ? {} : { responseStatus: attempt.responseStatus }),
          ...(attempt.error === undefined ? {} : { error: attempt.error }),
        },
        ...(attempt.responseStatus === undefined || attempt.error === undefined
          ? {
              $unset: {
                ...(attempt.responseStatus === undefined ? { responseStatus: '' as const } : {}),
                ...(attempt.error === undefined ? { error: '' as const } : {}),
              },
            }
          : {}),
      },
    );
  }

  async deliveries(tenantId: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    const documents = await this.deliveriesCollection
      .find({ tenantId, subscriptionId })
      .sort({ activityAt: -1, offset: -1, _id: 1 })
      .limit(Math.max(1, Math.floor(limit)))
      .toArray();
    return documents.slice(0, Math.max(0, Math.floor(limit))).map(deliveryOf);
  }

  async prune(deliveredBefore: number): Promise<number> {
    const delivered = await this.deliveriesCollection.deleteMany({ status: 'delivered', deliveredAt: { $lt: deliveredBefore } });
    const referenced = (await this.deliveriesCollection.distinct('subscriptionId', {})) as string[];
    const existing = new Set((await this.subscriptionsCollection.find({ _id: { $in: referenced } }).toArray()).map((s) => s._id));
    const orphaned = referenced.filter((id) => !existing.has(id));
    const orphans =
      orphaned.length > 0 ? await this.deliveriesCollection.deleteMany({ subscriptionId: { $in: orphaned } }) : { deletedCount: 0 };
    return delivered.deletedCount + orphans.deletedCount;
  }
}

/** The document without its undefined fields: the driver would store them as null. */
function withoutUndefined<T extends object>(document: T): T {
  return Object.fromEntries(Object.entries(document).filter(([, value]) => value !== undefined)) as T;
}

function subscriptionOf({ _id, ...document }: SubscriptionDocument): WebhookSubscription {
  const startPosition: Record<number, number> = {};
  for (const [partition, offset] of Object.entries(document.startPosition ?? {})) startPosition[Number(partition)] = offset;
  return { id: _id, ...document, startPosition };
}

function deliveryOf({ _id, activityAt: _order, ...document }: DeliveryDocument): WebhookDelivery {
  return { id: _id, ...document };
}
