import { Body, Controller, createParamDecorator, Delete, ExecutionContext, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors, JsonBody, TenantRoute } from '../http/api-contract';
import { TenantId } from '../http/tenancy';
import {
  CreateWebhookDto,
  DeliveriesQuery,
  WEBHOOK_ID_PATTERN_SOURCE,
  WebhookCreatedResponse,
  WebhookDeletedResponse,
  WebhookDeliveryListResponse,
  WebhookListResponse,
} from './webhooks.dto';
import { type RequestOrigin, WebhooksService } from './webhooks.service';

/** The Host the request named and the port it arrived on: what a webhook URL must not point back at. */
const Origin = createParamDecorator((_: unknown, context: ExecutionContext): RequestOrigin => {
  const request = context.switchToHttp().getRequest<Request>();
  return { host: request.headers.host, localPort: request.socket?.localPort };
});

const WebhookIdParam = () =>
  ApiParam({
    name: 'webhookId',
    description: 'As POST /v1/webhooks answered it.',
    schema: { type: 'string', pattern: WEBHOOK_ID_PATTERN_SOURCE },
  });

/** A tenant's webhooks: memory changes POSTed to its endpoint, signed (README "Webhooks"). */
@ApiTags('webhooks')
@TenantRoute()
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Register an endpoint for memory changes; the answer carries its signing secret, once.',
    description:
      'Each delivery is a POST of one change (JSON) signed `engram-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`, with its event id in `engram-event-id`; at least once, in order per user, retried with backoff.',
  })
  @ApiCreatedResponse({ type: WebhookCreatedResponse })
  @JsonBody(
    '`url` not an absolute http(s) URL, carrying credentials, pointing at this server, or at a host ENGRAM_WEBHOOK_ALLOWED_HOSTS does not allow; an unknown event name (`events`); a `secret` too short or not printable ASCII.',
  )
  @ApiErrors({ 409: 'The tenant holds ENGRAM_WEBHOOK_MAX_PER_TENANT webhooks already.' })
  register(@TenantId() tenantId: string, @Body() body: CreateWebhookDto, @Origin() origin: RequestOrigin): Promise<WebhookCreatedResponse> {
    return this.webhooks.register(tenantId, body, origin);
  }

  @Get()
  @ApiOperation({ summary: "The tenant's webhooks (without their secrets), oldest first, with their status." })
  @ApiOkResponse({ type: WebhookListResponse })
  async list(@TenantId() tenantId: string): Promise<WebhookListResponse> {
    return { webhooks: await this.webhooks.list(tenantId) };
  }

  @Delete(':webhookId')
  @ApiOperation({ summary: 'Delete a webhook and its deliveries; nothing more is sent to it.' })
  @WebhookIdParam()
  @ApiOkResponse({ type: WebhookDeletedResponse })
  @ApiErrors({ 400: 'A malformed `webhookId`.', 404: 'The tenant has no such webhook.' })
  remove(@TenantId() tenantId: string, @Param('webhookId') webhookId: string): Promise<WebhookDeletedResponse> {
    return this.webhooks.remove(tenantId, webhookId);
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({
    summary: "A webhook's recent deliveries: status, attempts, the receiver's last answer or error, when it is tried again.",
  })
  @WebhookIdParam()
  @ApiOkResponse({ type: WebhookDeliveryListResponse })
  @ApiErrors({ 400: 'A malformed `webhookId`, or `limit` not an integer in 1-500.', 404: 'The tenant has no such webhook.' })
  async deliveries(
    @TenantId() tenantId: string,
    @Param('webhookId') webhookId: string,
    @Query() query: DeliveriesQuery,
  ): Promise<WebhookDeliveryListResponse> {
    return { deliveries: await this.webhooks.deliveries(tenantId, webhookId, query.limit) };
  }
}
