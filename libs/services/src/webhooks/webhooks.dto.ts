import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { WEBHOOK_EVENTS, type WebhookEventName } from '@engram/contracts';
import { WEBHOOK_URL_MAX_LENGTH } from '@engram/domain';
import { Absent } from '../http/request-fields';

const WEBHOOK_SECRET_MIN_LENGTH = 24;
const WEBHOOK_SECRET_MAX_LENGTH = 256;
/** Printable ASCII without spaces: a secret copied between systems survives unchanged. */
const SECRET_PATTERN = /^[\x21-\x7e]+$/;
/** `http://` or `https://`, in any case (URLs are case-insensitive there); the rest is checked by the service. */
const URL_PATTERN_SOURCE = '^[Hh][Tt][Tt][Pp]([Ss])?://';
export const WEBHOOK_ID_PATTERN_SOURCE = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const WEBHOOK_ID_PATTERN = new RegExp(WEBHOOK_ID_PATTERN_SOURCE);
const DELIVERIES_PAGE_MAX = 500;

export class CreateWebhookDto {
  @ApiProperty({
    description:
      'Where deliveries are POSTed: an absolute http or https URL without credentials, not this engram server itself, on a host ENGRAM_WEBHOOK_ALLOWED_HOSTS allows (when set).',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    pattern: URL_PATTERN_SOURCE,
    example: 'https://hooks.example.com/engram',
  })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  @Matches(new RegExp(URL_PATTERN_SOURCE), { message: 'url must be an absolute http or https URL' })
  url!: string;

  @ApiPropertyOptional({
    description: 'The memory changes to deliver; absent: all of them.',
    type: 'array',
    items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    minItems: 1,
    uniqueItems: true,
  })
  @Absent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true, message: `events must each be one of: ${WEBHOOK_EVENTS.join(', ')}` })
  events?: WebhookEventName[];

  @ApiPropertyOptional({
    description: `The HMAC key of the signatures (${WEBHOOK_SECRET_MIN_LENGTH}-${WEBHOOK_SECRET_MAX_LENGTH} printable ASCII characters, no spaces); absent: one is generated. Either way it is answered once, here.`,
    minLength: WEBHOOK_SECRET_MIN_LENGTH,
    maxLength: WEBHOOK_SECRET_MAX_LENGTH,
    pattern: SECRET_PATTERN.source,
  })
  @Absent()
  @IsString()
  @MinLength(WEBHOOK_SECRET_MIN_LENGTH, { message: `secret must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters` })
  @MaxLength(WEBHOOK_SECRET_MAX_LENGTH)
  @Matches(SECRET_PATTERN, { message: 'secret must be printable ASCII characters without spaces' })
  secret?: string;

  @ApiPropertyOptional({
    description:
      '`now` (default): the changes engram makes from now on. `beginning`: also every change the log still holds, delivered first (the subscription is `backfilling` until they are queued).',
    enum: ['now', 'beginning'],
    default: 'now',
  })
  @Absent()
  @IsIn(['now', 'beginning'])
  from?: 'now' | 'beginning';
}

export class WebhookView {
  @ApiProperty({ pattern: WEBHOOK_ID_PATTERN_SOURCE }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } }) events!: WebhookEventName[];
  @ApiProperty({
    enum: ['active', 'backfilling', 'disabled'],
    description: '`disabled`: a delivery kept failing (see `disabledReason`); nothing more is sent. Delete it and register again.',
  })
  status!: 'active' | 'backfilling' | 'disabled';
  @ApiProperty({ enum: ['now', 'beginning'] }) from!: 'now' | 'beginning';
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabledAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) disabledReason!: string | null;
}

export class WebhookCreatedResponse extends WebhookView {
  @ApiProperty({ description: 'The signing secret: shown this once, never again.' }) secret!: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookView] }) webhooks!: WebhookView[];
}

export class WebhookDeletedResponse {
  @ApiProperty({ enum: [true] }) deleted!: true;
  @ApiProperty({ pattern: WEBHOOK_ID_PATTERN_SOURCE }) id!: string;
}

export class WebhookDeliveryView {
  @ApiProperty({ description: "The event id: the `engram-event-id` header and the body's `id`." }) eventId!: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENTS] }) type!: WebhookEventName;
  @ApiProperty() userId!: string;
  @ApiProperty({ type: String, nullable: true }) memoryId!: string | null;
  @ApiProperty({ enum: ['pending', 'delivered'] }) status!: 'pending' | 'delivered';
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Attempts made (each but a delivered one a failure).' }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastAttemptAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it is tried again (pending only).' })
  nextAttemptAt!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status at the last attempt." }) responseStatus!:
    number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed.' }) error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deliveredAt!: string | null;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryView] }) deliveries!: WebhookDeliveryView[];
}

export class DeliveriesQuery {
  @ApiPropertyOptional({ type: 'integer', default: 50, minimum: 1, maximum: DELIVERIES_PAGE_MAX })
  @Absent()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(DELIVERIES_PAGE_MAX)
  limit?: number;
}
