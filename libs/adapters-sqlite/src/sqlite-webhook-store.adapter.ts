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
import type BetterSqlite3 from 'better-sqlite3';
import { type Database, immediate } from './sqlite-database';

interface SubscriptionRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: number;
  start_from: 'now' | 'beginning';
  start_position: string;
  status: WebhookStatus;
  disabled_at: number | null;
  disabled_reason: string | null;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  tenant_id: string;
  user_id: string;
  event_id: string;
  event: WebhookEventName;
  memory_id: string | null;
  log_partition: number;
  log_offset: number;
  recorded_at: string;
  stored: string | null;
  created_at: number;
  status: 'pending' | 'delivered';
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  last_attempt_at: number | null;
  response_status: number | null;
  error: string | null;
  delivered_at: number | null;
}

/**
 * Webhook subscriptions and their outbox (embedded), in the database of the fact store. A lane's
 * head is found with an index on (subscription, user, status, partition, offset): the pending
 * delivery no other pending delivery of its lane precedes.
 */
export class SqliteWebhookStore implements WebhookStore {
  private readonly statements: {
    addSubscription: BetterSqlite3.Statement<SubscriptionRow>;
    subscriptions: BetterSqlite3.Statement<[string], SubscriptionRow>;
    subscription: BetterSqlite3.Statement<[string, string], SubscriptionRow>;
    live: BetterSqlite3.Statement<[], SubscriptionRow>;
    removeSubscription: BetterSqlite3.Statement<[string, string]>;
    removeDeliveries: BetterSqlite3.Statement<[string]>;
    activate: BetterSqlite3.Statement<[string]>;
    disable: BetterSqlite3.Statement<[number, string, string]>;
    enqueue: BetterSqlite3.Statement<
      Omit<
        DeliveryRow,
        'status' | 'attempts' | 'next_attempt_at' | 'lease_until' | 'last_attempt_at' | 'response_status' | 'error' | 'delivered_at'
      >
    >;
    redact: BetterSqlite3.Statement<[string, string, number, number]>;
    due: BetterSqlite3.Statement<{ now: number; limit: number }, DeliveryRow>;
    claim: BetterSqlite3.Statement<[number, string, number]>;
    failed: BetterSqlite3.Statement<[number, number, number | null, string | null, number, string]>;
    delivered: BetterSqlite3.Statement<[number, number, number | null, number, string]>;
    deliveries: BetterSqlite3.Statement<[string, string, number], DeliveryRow>;
    pruneDelivered: BetterSqlite3.Statement<[number]>;
    pruneOrphans: BetterSqlite3.Statement<[]>;
  };
  private readonly removeTx: (tenantId: string, id: string) => boolean;
  private readonly enqueueTx: (deliveries: readonly NewWebhookDelivery[]) => void;

  constructor(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS webhook_subscriptions (
        id              TEXT    PRIMARY KEY,
        tenant_id       TEXT    NOT NULL,
        url             TEXT    NOT NULL,
        events          TEXT    NOT NULL,
        secret          TEXT    NOT NULL,
        created_at      INTEGER NOT NULL,
        start_from      TEXT    NOT NULL,
        start_position  TEXT    NOT NULL,
        status          TEXT    NOT NULL,
        disabled_at     INTEGER,
        disabled_reason TEXT
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS webhook_subscriptions_by_tenant ON webhook_subscriptions (tenant_id, created_at);
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id              TEXT    PRIMARY KEY,
        subscription_id TEXT    NOT NULL,
        tenant_id       TEXT    NOT NULL,
        user_id         TEXT    NOT NULL,
        event_id        TEXT    NOT NULL,
        event           TEXT    NOT NULL,
        memory_id       TEXT,
        log_partition   INTEGER NOT NULL,
        log_offset      INTEGER NOT NULL,
        recorded_at     TEXT    NOT NULL,
        stored          TEXT,
        created_at      INTEGER NOT NULL,
        status          TEXT    NOT NULL,
        attempts        INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        lease_until     INTEGER NOT NULL,
        last_attempt_at INTEGER,
        response_status INTEGER,
        error           TEXT,
        delivered_at    INTEGER,
        activity_at     INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_lane ON webhook_deliveries (subscription_id, user_id, status, log_partition, log_offset);
      CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_user ON webhook_deliveries (tenant_id, user_id, status);
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_activity ON webhook_deliveries (subscription_id, activity_at);
    `);
    const subscriptionColumns = `id, tenant_id, url, events, secret, created_at, start_from, start_position, status, disabled_at, disabled_reason`;
    this.statements = {
      addSubscription: db.prepare(
        `INSERT INTO webhook_subscriptions (${subscriptionColumns})
         VALUES (@id, @tenant_id, @url, @events, @secret, @created_at, @start_from, @start_position, @status, @disabled_at, @disabled_reason)`,
      ),
      subscriptions: db.prepare(`SELECT * FROM webhook_subscriptions WHERE tenant_id = ? ORDER BY created_at, id`),
      subscription: db.prepare(`SELECT * FROM webhook_subscriptions WHERE tenant_id = ? AND id = ?`),
      live: db.prepare(`SELECT * FROM webhook_subscriptions WHERE status <> 'disabled' ORDER BY created_at, id`),
      removeSubscription: db.prepare(`DELETE FROM webhook_subscriptions WHERE tenant_id = ? AND id = ?`),
      removeDeliveries: db.prepare(`DELETE FROM webhook_deliveries WHERE subscription_id = ?`),
      activate: db.prepare(`UPDATE webhook_subscriptions SET status = 'active' WHERE id = ? AND status = 'backfilling'`),
      disable: db.prepare(`UPDATE webhook_subscriptions SET status = 'disabled', disabled_at = ?, disabled_reason = ? WHERE id = ?`),
      enqueue: db.prepare(
        `INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, user_id, event_id, event, memory_id, log_partition, log_offset,
           recorded_at, stored, created_at, status, attempts, next_attempt_at, lease_until, activity_at)
         VALUES (@id, @subscription_id, @tenant_id, @user_id, @event_id, @event, @memory_id, @log_partition, @log_offset,
           @recorded_at, @stored, @created_at, 'pending', 0, @created_at, 0, @created_at)
         ON CONFLICT (id) DO NOTHING`,
      ),
      redact: db.prepare(
        `UPDATE webhook_deliveries SET stored = NULL
         WHERE tenant_id = ? AND user_id = ? AND status = 'pending' AND log_partition = ? AND log_offset < ?`,
      ),
      due: db.prepare(
        `SELECT d.* FROM webhook_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
         WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND d.lease_until <= @now
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries e
             WHERE e.subscription_id = d.subscription_id AND e.user_id = d.user_id AND e.status = 'pending'
               AND (e.log_partition < d.log_partition OR (e.log_partition = d.log_partition AND e.log_offset < d.log_offset)))
         ORDER BY d.next_attempt_at, d.log_offset, d.id
         LIMIT @limit`,
      ),
      claim: db.prepare(`UPDATE webhook_deliveries SET lease_until = ? WHERE id = ? AND status = 'pending' AND lease_until <= ?`),
      failed: db.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, activity_at = ?, response_status = ?, error = ?,
           next_attempt_at = ?, lease_until = 0
         WHERE id = ? AND status = 'pending'`,
      ),
      delivered: db.prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, activity_at = ?, response_status = ?, error = NULL,
           delivered_at = ?, status = 'delivered', stored = NULL, lease_until = 0
         WHERE id = ? AND status = 'pending'`,
      ),
      deliveries: db.prepare(
        `SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ? ORDER BY activity_at DESC, log_offset DESC, id LIMIT ?`,
      ),
      pruneDelivered: db.prepare(`DELETE FROM webhook_deliveries WHERE status = 'delivered' AND delivered_at < ?`),
      pruneOrphans: db.prepare(`DELETE FROM webhook_deliveries WHERE subscription_id NOT IN (SELECT id FROM webhook_subscriptions)`),
    };
    this.removeTx = immediate(db, (tenantId: string, id: string) => {
      if (this.statements.removeSubscription.run(tenantId, id).changes === 0) return false;
      this.statements.removeDeliveries.run(id);
      return true;
    });
    this.enqueueTx = immediate(db, (deliveries: readonly NewWebhookDelivery[]) => {
      for (const d of deliveries) {
        this.statements.enqueue.run({
          id: d.id,
          subscription_id: d.subscriptionId,
          tenant_id: d.tenantId,
          user_id: d.userId,
          event_id: d.eventId,
          event: d.event,
          memory_id: d.memoryId ?? null,
          log_partition: d.partition,
          log_offset: d.offset,
          recorded_at: d.recordedAt,
          stored: d.stored,
          created_at: d.createdAt,
        });
      }
    });
  }

  async addSubscription(s: WebhookSubscription): Promise<void> {
    this.statements.addSubscription.run({
      id: s.id,
      tenant_id: s.tenantId,
      url: s.url,
      events: JSON.stringify(s.events),
      secret: s.secret,
      created_at: s.createdAt,
      start_from: s.from,
      start_position: JSON.stringify(s.startPosition),
      status: s.status,
      disabled_at: s.disabledAt ?? null,
      disabled_reason: s.disabledReason ?? null,
    });
  }

  async subscriptions(tenantId: string): Promise<WebhookSubscription[]> {
    return this.statements.subscriptions.all(tenantId).map(subscriptionOf);
  }

  async subscription(tenantId: string, id: string): Promise<WebhookSubscription | undefined> {
    const row = this.statements.subscription.get(tenantId, id);
    return row ? subscriptionOf(row) : undefined;
  }

  async liveSubscriptions(): Promise<WebhookSubscription[]> {
    return this.statements.live.all().map(subscriptionOf);
  }

  async removeSubscription(tenantId: string, id: string): Promise<boolean> {
    return this.removeTx(tenantId, id);
  }

  async activate(id: string): Promise<void> {
    this.statements.activate.run(id);
  }

  async disable(id: string, at: number, reason: string): Promise<void> {
    this.statements.disable.run(at, reason, id);
  }

  async enqueue(deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    if (deliveries.length > 0) this.enqueueTx(deliveries);
  }

  async redactUser(tenantId: string, userId: string, at: { readonly partition: number; readonly offset: number }): Promise<void> {
    this.statements.redact.run(tenantId, userId, at.partition, at.offset);
  }

  async dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]> {
    return this.statements.due.all({ now, limit: Math.max(0, Math.floor(limit)) }).map(deliveryOf);
  }

  async claim(id: string, now: number, until: number): Promise<boolean> {
    return this.statements.claim.run(until, id, now).changes === 1;
  }

  async recordAttempt(id: string, attempt: WebhookAttempt): Promise<void> {
    if (attempt.delivered) {
      this.statements.delivered.run(attempt.at, attempt.at, attempt.responseStatus ?? null, attempt.at, id);
    } else {
      this.statements.failed.run(
        attempt.at,
        attempt.at,
        attempt.responseStatus ?? null,
        attempt.error ?? null,
        attempt.nextAttemptAt ?? attempt.at,
        id,
      );
    }
  }

  async deliveries(tenantId: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    return this.statements.deliveries.all(tenantId, subscriptionId, Math.max(0, Math.floor(limit))).map(deliveryOf);
  }

  async prune(deliveredBefore: number): Promise<number> {
    return this.statements.pruneDelivered.run(deliveredBefore).changes + this.statements.pruneOrphans.run().changes;
  }
}

function subscriptionOf(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventName[],
    secret: row.secret,
    createdAt: row.created_at,
    from: row.start_from,
    startPosition: JSON.parse(row.start_position) as LogPosition,
    status: row.status,
    ...(row.disabled_at !== null ? { disabledAt: row.disabled_at } : {}),
    ...(row.disabled_reason !== null ? { disabledReason: row.disabled_reason } : {}),
  };
}

function deliveryOf(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    eventId: row.event_id,
    event: row.event,
    ...(row.memory_id !== null ? { memoryId: row.memory_id } : {}),
    partition: row.log_partition,
    offset: row.log_offset,
    recordedAt: row.recorded_at,
    stored: row.stored,
    createdAt: row.created_at,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    leaseUntil: row.lease_until,
    ...(row.last_attempt_at !== null ? { lastAttemptAt: row.last_attempt_at } : {}),
    ...(row.response_status !== null ? { responseStatus: row.response_status } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.delivered_at !== null ? { deliveredAt: row.delivered_at } : {}),
  };
}
