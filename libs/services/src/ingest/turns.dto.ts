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
import { EngramConfig } from '@engram/config';
import { TURN_ROLES, TurnRole } from '@engram/contracts';
import { codePointLength } from './input-limits';

/** What the document says the limits are: the defaults (the running values are ENGRAM_MAX_*). */
const DEFAULTS = new EngramConfig();

/**
 * Ids are opaque to engram but must be printable and bounded: 1-128 code points, no whitespace,
 * control or invisible formatting characters, and no lone surrogate (`t\ud800` and `t\udc00` would
 * encode to the same bytes and collide on one deterministic id).
 */
export const ID_MAX_LENGTH = 128;
/**
 * Spelled out range by range (JavaScript's `\s` is U+0009-000D, U+0020, U+00A0, U+1680, U+2000-200A,
 * U+2028-2029, U+202F, U+205F, U+3000, U+FEFF) so that the OpenAPI document's `pattern` means the
 * same to every regex engine that reads it.
 */
const NOT_IN_IDS = '\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u1680\\u2000-\\u200f\\u2028\\u2029\\u202f\\u205f\\u2060-\\u2064\\u3000\\ufeff';
/**
 * The document's pattern. It leaves lone surrogates out: a JSON Schema string is made of Unicode
 * scalar values, which they are not (and engines that compile patterns to UTF-8, like Rust's, refuse
 * the range). The server refuses them all the same (ID_PATTERN).
 */
export const ID_PATTERN_SOURCE = `^[^${NOT_IN_IDS}]{1,${ID_MAX_LENGTH}}$`;
export const ID_PATTERN = new RegExp(`^[^${NOT_IN_IDS}\\ud800-\\udfff]{1,${ID_MAX_LENGTH}}$`, 'u');
export const ID_MESSAGE = 'must be 1-128 characters without whitespace, control, invisible characters or lone surrogates';

/** A lone surrogate (half of a UTF-16 pair): not text, and not encodable as UTF-8. */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;
/**
 * A visible character: not whitespace (JavaScript's `\s`, spelled out as for ID_PATTERN) nor an
 * invisible one. A text made only of those says nothing. Unanchored: "contains one".
 */
export const VISIBLE_PATTERN_SOURCE =
  '[^\\u0009-\\u000d\\u0020\\u00a0\\u00ad\\u034f\\u1680\\u180e\\u2000-\\u200f\\u2028\\u2029\\u202f\\u205f\\u2060-\\u2064\\u3000\\ufeff]';
// eslint-disable-next-line no-misleading-character-class -- a combining mark alone is invisible, as listed
export const VISIBLE = new RegExp(VISIBLE_PATTERN_SOURCE, 'u');

/** A text schema: at most `maxLength` code points, at least one of them visible. */
export const textSchema = (maxLength: number) => ({ minLength: 1, maxLength, pattern: VISIBLE_PATTERN_SOURCE });
/** An id schema: ID_PATTERN. */
export const idSchema = { minLength: 1, maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN_SOURCE } as const;

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
  const offsetMinutes =
    zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(time + offsetMinutes * 60_000);
  return local.getUTCFullYear() === Number(y) && local.getUTCMonth() + 1 === Number(m) && local.getUTCDate() === Number(d);
}

/** Well-formed Unicode: no lone surrogates (they are not text, and no UTF-8 encodes them). */
export function IsWellFormed(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWellFormed',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !LONE_SURROGATE.test(value),
        defaultMessage: (args) => `${args?.property} must be well-formed Unicode (no lone surrogates)`,
      },
    },
    options,
  );
}

/** At most `max` code points (an emoji is one, as ENGRAM_MAX_TEXT_LENGTH and JSON Schema's maxLength count). */
export function MaxCodePoints(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      constraints: [max],
      validator: {
        // UTF-16 length is an upper bound of the code points: most texts need no count.
        validate: (value: unknown) => typeof value === 'string' && (value.length <= max || codePointLength(value) <= max),
        defaultMessage: (args) => `${args?.property} must be at most ${max} characters (code points)`,
      },
    },
    options,
  );
}

/**
 * What is wrong with `value` as text a person wrote, for checks outside a DTO (query parameters,
 * free-form maps): not a string, lone surrogates, nothing visible, more than `max` code points.
 */
export function textProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (no lone surrogates)';
  if (!VISIBLE.test(value)) return 'must contain visible characters, not only whitespace or invisible ones';
  if (value.length > max && codePointLength(value) > max) return `must be at most ${max} characters (code points)`;
  return undefined;
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
  @ApiProperty({
    description: "The client's idempotency key within a user: a turn sent twice is stored once.",
    example: 't-1',
    ...idSchema,
  })
  @IsString()
  @Matches(ID_PATTERN, { message: `turnId ${ID_MESSAGE}` })
  turnId!: string;

  @ApiProperty({ enum: TURN_ROLES, example: 'user' })
  @IsIn(TURN_ROLES)
  role!: TurnRole;

  @ApiPropertyOptional({ description: 'Display name of who spoke.', example: '老周', ...textSchema(128) })
  @Absent()
  @IsString()
  @MaxCodePoints(128)
  @IsText()
  speaker?: string;

  @ApiProperty({
    description: `At most ENGRAM_MAX_TEXT_LENGTH code points (default ${DEFAULTS.ENGRAM_MAX_TEXT_LENGTH}).`,
    example: '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL',
    ...textSchema(DEFAULTS.ENGRAM_MAX_TEXT_LENGTH),
  })
  @IsString()
  @MaxLength(TEXT_CEILING)
  @IsText()
  text!: string;

  @ApiPropertyOptional({
    description: 'Where the turn came from (lower-case slug: web, app, wechat…).',
    example: 'web',
    pattern: '^[a-z0-9_-]{1,32}$',
  })
  @Absent()
  @IsString()
  @Matches(/^[a-z0-9_-]{1,32}$/, { message: 'channel must be a lower-case slug of 1-32 letters, digits, _ or -' })
  channel?: string;

  @ApiProperty({
    description: "ISO-8601 instant the turn happened, with a time zone; at most ENGRAM_MAX_FUTURE_MS after the server's clock.",
    example: '2026-11-30T09:00:00Z',
    format: 'date-time',
  })
  @IsString()
  @IsInstant()
  occurredAt!: string;
}

export class PostTurnsDto {
  @ApiProperty({ example: 'u-42', ...idSchema })
  @IsString()
  @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` })
  userId!: string;

  @ApiProperty({ example: 's-1', ...idSchema })
  @IsString()
  @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` })
  sessionId!: string;

  @ApiProperty({
    type: [TurnDto],
    minItems: 1,
    maxItems: DEFAULTS.ENGRAM_MAX_TURNS_PER_REQUEST,
    description: `At most ENGRAM_MAX_TURNS_PER_REQUEST (default ${DEFAULTS.ENGRAM_MAX_TURNS_PER_REQUEST}).`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => TurnDto)
  turns!: TurnDto[];
}

export class PostTurnsResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Turns accepted from this request (duplicates within it counted once).' })
  accepted!: number;

  @ApiProperty({ description: 'Consistency token: pass it as `after` to recall to read your own writes.' })
  position!: string;
}
