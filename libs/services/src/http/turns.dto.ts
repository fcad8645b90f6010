import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { TURN_ROLES, TurnRole } from '@engram/contracts';

/** Ids are opaque to engram but must be printable and bounded. */
export const ID_PATTERN = /^[^\s\u0000-\u001f]{1,128}$/u;
export const ID_MESSAGE = 'must be 1-128 characters without whitespace or control characters';

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
  @IsOptional() @IsString() @MaxLength(128)
  speaker?: string;

  @ApiProperty({ example: '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL' })
  @IsString() @IsNotEmpty() @MaxLength(TEXT_CEILING)
  text!: string;

  @ApiPropertyOptional({ description: 'Where the turn came from (lower-case slug: web, app, wechat…).', example: 'web' })
  @IsOptional() @IsString() @Matches(/^[a-z0-9_-]{1,32}$/, { message: 'channel must be a lower-case slug of 1-32 letters, digits, _ or -' })
  channel?: string;

  @ApiProperty({ description: 'ISO-8601 instant the turn happened.', example: '2026-11-30T09:00:00Z' })
  @IsISO8601({ strict: true, strictSeparator: true })
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
