import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { HttpOptions, WebhookOptions } from '@engram/config';
import { Topics, WEBHOOK_EVENTS } from '@engram/contracts';
import { checkWebhookUrl, type WebhookUrlRules } from '@engram/domain';
import { EventLog, type WebhookDelivery, WebhookStore, type WebhookSubscription } from '@engram/ports';
import { EventPublisher } from '../pipeline/event-publisher';
import {
  type CreateWebhookDto,
  WEBHOOK_ID_PATTERN,
  type WebhookCreatedResponse,
  type WebhookDeletedResponse,
  type WebhookDeliveryView,
  type WebhookView,
} from './webhooks.dto';

/** Where a request reached this server: the Host it named and the port it came in on. */
export interface RequestOrigin {
  readonly host?: string;
  readonly localPort?: number;
}

/** Registering, listing and deleting a tenant's webhooks, and reading their deliveries. */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(WebhookOptions) private readonly options: WebhookOptions,
    @Inject(HttpOptions) private readonly http: HttpOptions,
    private readonly publisher: EventPublisher,
  ) {}

  async register(tenantId: string, body: CreateWebhookDto, origin: RequestOrigin): Promise<WebhookCreatedResponse> {
    const checked = checkWebhookUrl(body.url, { allowedHosts: this.options.allowedHosts, self: this.selfOf(origin) });
    if (!checked.ok) throw new BadRequestException({ message: [`url ${checked.problem}`], fields: ['url'] });
    if ((await this.store.subscriptions(tenantId)).length >= this.options.maxPerTenant) {
      throw new ConflictException({
        message: [`a tenant holds at most ${this.options.maxPerTenant} webhooks: delete one first`],
        fields: [],
      });
    }
    const from = body.from ?? 'now';
    // The log's end before the subscription exists: what the outbox reads after this (each batch
    // reads the subscriptions anew) it delivers; what it read before is history, for `beginning` only.
    const topic = this.publisher.topic(Topics.facts);
    await this.eventLog.ensureTopics([topic]);
    const subscription: WebhookSubscription = {
      id: randomUUID(),
      tenantId,
      url: checked.url,
      events: WEBHOOK_EVENTS.filter((name) => (body.events ?? WEBHOOK_EVENTS).includes(name)),
      secret: body.secret ?? `whsec_${randomBytes(32).toString('base64url')}`,
      createdAt: Date.now(),
      from,
      startPosition: await this.eventLog.endPosition(topic),
      status: from === 'beginning' ? 'backfilling' : 'active',
    };
    await this.store.addSubscription(subscription);
    return { ...viewOf(subscription), secret: subscription.secret };
  }

  async list(tenantId: string): Promise<WebhookView[]> {
    return (await this.store.subscriptions(tenantId)).map(viewOf);
  }

  async remove(tenantId: string, webhookId: string): Promise<WebhookDeletedResponse> {
    if (!(await this.store.removeSubscription(tenantId, checkWebhookId(webhookId)))) throw notFound(webhookId);
    return { deleted: true, id: webhookId };
  }

  async deliveries(tenantId: string, webhookId: string, limit = 50): Promise<WebhookDeliveryView[]> {
    if (!(await this.store.subscription(tenantId, checkWebhookId(webhookId)))) throw notFound(webhookId);
    return (await this.store.deliveries(tenantId, webhookId, limit)).map(deliveryViewOf);
  }

  /**
   * This server as a URL could name it: the port the request came in on and the configured one
   * (and the Host's), on loopback, on any address of this host, or under the Host name it was
   * called by.
   */
  private selfOf(origin: RequestOrigin): WebhookUrlRules['self'] {
    const ports = new Set<number>();
    const hosts = new Set<string>([hostname().toLowerCase()]);
    if (origin.localPort) ports.add(origin.localPort);
    if (this.http.port > 0) ports.add(this.http.port);
    if (origin.host) {
      try {
        const called = new URL(`http://${origin.host}`);
        hosts.add(called.hostname);
        if (called.port) ports.add(Number(called.port));
        else [80, 443].forEach((port) => ports.add(port));
      } catch {
        // A Host header no URL can hold names no host a webhook could point at.
      }
    }
    for (const addresses of Object.values(networkInterfaces())) {
      for (const { address, family } of addresses ?? []) hosts.add(family === 'IPv6' ? `[${address.split('%')[0]}]` : address);
    }
    return { ports: [...ports], hosts: [...hosts] };
  }
}

function checkWebhookId(webhookId: string): string {
  if (!WEBHOOK_ID_PATTERN.test(webhookId)) {
    throw new BadRequestException({ message: ['webhookId must be a webhook id as POST /v1/webhooks answered it'], fields: ['webhookId'] });
  }
  return webhookId;
}

function notFound(webhookId: string): NotFoundException {
  return new NotFoundException({ message: [`no webhook ${webhookId}`], fields: ['webhookId'] });
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function viewOf(s: WebhookSubscription): WebhookView {
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    status: s.status,
    from: s.from,
    createdAt: new Date(s.createdAt).toISOString(),
    disabledAt: iso(s.disabledAt),
    disabledReason: s.disabledReason ?? null,
  };
}

function deliveryViewOf(d: WebhookDelivery): WebhookDeliveryView {
  return {
    eventId: d.eventId,
    type: d.event,
    userId: d.userId,
    memoryId: d.memoryId ?? null,
    status: d.status,
    attempts: d.attempts,
    createdAt: new Date(d.createdAt).toISOString(),
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    responseStatus: d.responseStatus ?? null,
    error: d.error ?? null,
    deliveredAt: iso(d.deliveredAt),
  };
}
