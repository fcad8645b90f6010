import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { TURN_ROLES, TurnRole } from '@engram/contracts';

/**
 * Ids are opaque to engram but must be printable and bounded: 1-128 code points, no whitespace,
 * control or invisible formatting characters, and no lone surrogate (`t\ud800` and `t\udc00` would
 * encode to the same bytes and collide on one deterministic id).
 */
export const ID_PATTERN = /^[^\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060-\u2064\ufeff\ud800-\udfff]{1,128}$/u;
export const ID_MESSAGE = 'must be 1-128 characters without whitespace, control, invisible characters or lone surrogates';

/** A lone surrogate (half of a UTF-16 pair): not text, and not encodable as UTF-8. */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;
/** Whitespace and invisible characters; a text made only of these says nothing. */
export const VISIBLE = /[^\s\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]/u;

/** RFC 3339: a date, a time and a time zone (`Z` or `±hh:mm`); nothing a time zone could make ambiguous. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Optional, but `null` is not absent: a field sent as null is refused, not skipped. */
export const Absent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** An instant with a time zone that is a real date (not `2026-02-30T…`, not an ISO week `2026-W48-1`). */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && INSTANT.test(value) && isRealDate(value),
        defaultMessage: (args) => `${args?.property} must be an ISO-8601 instant with a time zone, e.g. 2026-11-30T09:00:00Z`,
      },
    },
    options,
  );
}

function isRealDate(value: string): boolean {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  // Date.parse rolls 02-30 over into March: the calendar date must read back the same (in its own zone).
  const [, y, m, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(value)!;
  const zone = /(Z|[+-]\d{2}:\d{2})$/i.exec(value)![1];
  const offsetMinutes = zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(time + offsetMinutes * 60_000);
  return local.getUTCFullYear() === Number(y) && local.getUTCMonth() + 1 === Number(m) && local.getUTCDate() === Number(d);
}

/** Text a person wrote: well-formed (no lone surrogates) and not only whitespace or invisible characters. */
export function IsText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isText',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && VISIBLE.test(value) && !LONE_SURROGATE.test(value),
        defaultMessage: (args) =>
          typeof args?.value !== 'string'
            ? `${args?.property} must be a string`
            : LONE_SURROGATE.test(args.value)
            ? `${args.property} must be well-formed Unicode (no lone surrogates)`
            : `${args?.property} must contain visible characters, not only whitespace or invisible ones`,
      },
    },
    options,
  );
}

// Text length is bounded by ENGRAM_MAX_TEXT_LENGTH at runtime (see TurnsController); this is the hard ceiling.
export const TEXT_CEILING = 1_000_000;

export class TurnDto {
  @ApiProperty({ description: "The client's idempotency key within a user: a turn sent twice is stored once.", example: 't-1' })
  @IsString() @Matches(ID_PATTERN, { message: `turnId ${ID_MESSAGE}` })
  turnId!: string;

  @ApiProperty({ enum: TURN_ROLES, example: 'user' })
  @IsIn(TURN_ROLES)
  role!: TurnRole;

  @ApiPropertyOptional({ description: 'Display name of who spoke.', example: '老周' })
  @Absent() @IsString() @MaxLength(128) @IsText()
  speaker?: string;

  @ApiProperty({ example: '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL' })
  @IsString() @MaxLength(TEXT_CEILING) @IsText()
  text!: string;

  @ApiPropertyOptional({ description: 'Where the turn came from (lower-case slug: web, app, wechat…).', example: 'web' })
  @Absent() @IsString() @Matches(/^[a-z0-9_-]{1,32}$/, { message: 'channel must be a lower-case slug of 1-32 letters, digits, _ or -' })
  channel?: string;

  @ApiProperty({
    description: 'ISO-8601 instant the turn happened, with a time zone; at most ENGRAM_MAX_FUTURE_MS after the server\'s clock.',
    example: '2026-11-30T09:00:00Z',
    format: 'date-time',
  })
  @IsString() @IsInstant()
  occurredAt!: string;
}

export class PostTurnsDto {
  @ApiProperty({ example: 'u-42' })
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` })
  userId!: string;

  @ApiProperty({ example: 's-1' })
  @IsString() @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` })
  sessionId!: string;

  @ApiProperty({ type: [TurnDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(10_000)
  @ValidateNested({ each: true }) @Type(() => TurnDto)
  turns!: TurnDto[];
}

export class PostTurnsResponse {
  @ApiProperty({ description: 'Turns accepted from this request (duplicates within it counted once).' })
  accepted!: number;

  @ApiProperty({ description: 'Consistency token: pass it as `after` to recall to read your own writes.' })
  position!: string;
}
