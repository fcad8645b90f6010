import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { EngramConfig } from '@engram/config';
import { TURN_ROLES, TurnRole } from '@engram/contracts';
import { Absent, ID_MESSAGE, ID_PATTERN, idSchema, IsInstant, IsText, MaxCodePoints, textSchema } from '../http/request-fields';

/** What the document says the limits are: the defaults (the running values are ENGRAM_MAX_*). */
const DEFAULTS = new EngramConfig();

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
