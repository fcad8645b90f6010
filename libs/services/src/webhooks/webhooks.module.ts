import { Module } from '@nestjs/common';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookOutbox } from './webhook-outbox';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** /v1/webhooks: registering, listing and deleting a tenant's webhooks, and their deliveries. */
@Module({ controllers: [WebhooksController], providers: [WebhooksService] })
export class WebhooksModule {}

/**
 * The deliveries: the outbox reading memory.facts.v1 and the worker sending what is due. In the
 * indexer's module, so one kind of process per deployment sends (the embedded server, or the
 * indexer app).
 */
@Module({ providers: [WebhookMetrics, WebhookOutbox, WebhookDeliveryWorker] })
export class WebhookDeliveryModule {}
