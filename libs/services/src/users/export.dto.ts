import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsString,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MEMORY_KINDS, MEMORY_STATUSES } from '@engram/contracts';
import { Absent, IsInstant, IsText, IsWellFormed, MaxCodePoints, textSchema } from '../http/request-fields';

/** The export bundle: what `GET /v1/users/:userId/export` returns and `POST …/import` accepts. */
export const EXPORT_FORMAT = 'engram.export';
export const EXPORT_VERSION = 1;
export const EXPORT_MAX_MEMORIES = 10_000;

const ID_MAX = 256;
const TEXT_MAX = 32_000;

/**
 * A bundle comes from outside like a turn does: every string is well-formed Unicode and bounded in
 * code points, the texts a person reads have something visible, the instants have a time zone.
 */
const Str = (max: number) => applyDecorators(IsString(), IsWellFormed(), MaxCodePoints(max));
const Strs = (maxItems: number, max: number) =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(maxItems),
    IsString({ each: true }),
    IsWellFormed({ each: true }),
    MaxCodePoints(max, { each: true }),
  );
const Text = (max: number) => applyDecorators(IsString(), MaxCodePoints(max), IsText());
const strings = (maxItems: number, maxLength: number): ApiPropertyOptions => ({
  type: 'array',
  maxItems,
  items: { type: 'string', maxLength },
});
const instant = { format: 'date-time' } as const;
/**
 * A count or version: an integer JavaScript holds exactly. A larger one (6.98e29) passes `IsInt` but is
 * written back as `6.98e+29`, which no client reads as an integer.
 */
const count = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
/** Required, and may be null (`validTo` of a memory still valid): absent is refused. */
const Nullable = () => ValidateIf((_object: object, value: unknown) => value !== null);

export class ExportedVersionDto {
  @ApiProperty(count) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) version!: number;
  @ApiProperty({ maxLength: TEXT_MAX }) @Str(TEXT_MAX) value!: string;
  @ApiProperty(textSchema(TEXT_MAX)) @Text(TEXT_MAX) content!: string;
  @ApiProperty(instant) @IsInstant() validFrom!: string;
  @ApiProperty({ nullable: true, type: String, ...instant }) @Nullable() @IsInstant() validTo!: string | null;
  @ApiProperty(instant) @IsInstant() recordedAt!: string;
  @ApiProperty({ nullable: true, type: String, ...instant }) @Nullable() @IsInstant() supersededAt!: string | null;
  @ApiProperty(strings(1000, ID_MAX)) @Strs(1000, ID_MAX) sourceTurnIds!: string[];
  @ApiPropertyOptional({ ...strings(1000, ID_MAX), description: 'Insights: the memories this version was derived from.' })
  @Absent()
  @Strs(1000, ID_MAX)
  sources?: string[];
}

/** What a memory's current value contradicts, until the user confirms it (docs/memory-model.md §3). */
export class ExportedConflictDto {
  @ApiProperty(count) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) previousVersion!: number;
  @ApiProperty({ maxLength: TEXT_MAX }) @Str(TEXT_MAX) previousValue!: string;
  @ApiProperty({ maxLength: TEXT_MAX }) @Str(TEXT_MAX) previousContent!: string;
  @ApiProperty(instant) @IsInstant() previousFrom!: string;
  @ApiProperty(instant) @IsInstant() since!: string;
}

/** One memory, without tenant, user or resolver bookkeeping: the bundle is tenant-agnostic. */
export class ExportedMemoryDto {
  @ApiProperty({ minLength: 1, maxLength: ID_MAX }) @Str(ID_MAX) @IsNotEmpty() memoryId!: string;
  @ApiProperty({ minLength: 1, maxLength: 1000 }) @Str(1000) @IsNotEmpty() mergeKey!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) @IsIn(MEMORY_KINDS) kind!: (typeof MEMORY_KINDS)[number];
  @ApiProperty({ maxLength: 1000 }) @Str(1000) subject!: string;
  @ApiProperty({ maxLength: 1000 }) @Str(1000) attribute!: string;
  @ApiProperty({ maxLength: TEXT_MAX }) @Str(TEXT_MAX) value!: string;
  @ApiProperty(textSchema(TEXT_MAX)) @Text(TEXT_MAX) content!: string;
  @ApiProperty(strings(1000, 1000)) @Strs(1000, 1000) entities!: string[];
  @ApiProperty({ minimum: 0, maximum: 1 }) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) confidence!: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) importance!: number;
  @ApiProperty() @IsBoolean() ephemeral!: boolean;
  @ApiProperty() @IsBoolean() pinned!: boolean;
  @ApiPropertyOptional({ description: 'Health data (an allergy, a condition): present and true when so.' })
  @Absent()
  @IsBoolean()
  sensitive?: boolean;
  @ApiProperty({ enum: MEMORY_STATUSES }) @IsIn(MEMORY_STATUSES) status!: (typeof MEMORY_STATUSES)[number];
  @ApiProperty(count) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) version!: number;
  @ApiProperty(count) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) revision!: number;
  @ApiProperty(count) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) mentionCount!: number;
  @ApiProperty(strings(1000, ID_MAX)) @Strs(1000, ID_MAX) sourceTurnIds!: string[];
  @ApiPropertyOptional({ ...textSchema(ID_MAX), description: 'Who said the source turn, when named.' })
  @Absent()
  @Text(ID_MAX)
  speaker?: string;
  @ApiPropertyOptional({
    ...strings(100, TEXT_MAX),
    description: 'What else the memory is found by, never shown (the facts read from its turn, the turn before it).',
  })
  @Absent()
  @Strs(100, TEXT_MAX)
  keys?: string[];
  @ApiPropertyOptional({
    ...strings(1000, ID_MAX),
    description: 'Insights: ids (in this bundle) of the memories the insight is derived from.',
  })
  @Absent()
  @Strs(1000, ID_MAX)
  sources?: string[];
  @ApiPropertyOptional({ type: ExportedConflictDto, description: 'The current value contradicts an earlier one, unconfirmed.' })
  @Absent()
  @IsObject()
  @ValidateNested()
  @Type(() => ExportedConflictDto)
  conflict?: ExportedConflictDto;
  @ApiProperty(instant) @IsInstant() validFrom!: string;
  @ApiProperty({ nullable: true, type: String, ...instant }) @Nullable() @IsInstant() validTo!: string | null;
  @ApiPropertyOptional({ ...instant, description: 'When what it says stops holding (a stated time scope).' })
  @Absent()
  @IsInstant()
  expiresAt?: string;
  @ApiProperty(instant) @IsInstant() createdAt!: string;
  @ApiProperty(instant) @IsInstant() updatedAt!: string;
  @ApiProperty(instant) @IsInstant() lastSeenAt!: string;
  @ApiProperty({ type: [ExportedVersionDto], maxItems: 1000 })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => ExportedVersionDto)
  history!: ExportedVersionDto[];
}

/** A pinned fact, for people reading the bundle; import derives facts from `memories`. */
export class ExportedFactDto {
  @ApiProperty({ minLength: 1, maxLength: ID_MAX }) @Str(ID_MAX) @IsNotEmpty() memoryId!: string;
  @ApiProperty({ maxLength: 1000 }) @Str(1000) attribute!: string;
  @ApiProperty({ maxLength: TEXT_MAX }) @Str(TEXT_MAX) value!: string;
  @ApiProperty(textSchema(TEXT_MAX)) @Text(TEXT_MAX) content!: string;
}

export class ExportBundleDto {
  @ApiProperty({ enum: [EXPORT_FORMAT] }) @IsIn([EXPORT_FORMAT]) format!: typeof EXPORT_FORMAT;
  @ApiProperty({ enum: [EXPORT_VERSION] }) @IsIn([EXPORT_VERSION]) version!: typeof EXPORT_VERSION;
  @ApiProperty(instant) @IsInstant() exportedAt!: string;
  @ApiPropertyOptional({
    type: [ExportedFactDto],
    maxItems: EXPORT_MAX_MEMORIES,
    description: 'Informative: the pinned, active memories (checked, not imported).',
  })
  @Absent()
  @IsArray()
  @ArrayMaxSize(EXPORT_MAX_MEMORIES)
  @ValidateNested({ each: true })
  @Type(() => ExportedFactDto)
  facts?: ExportedFactDto[];
  @ApiProperty({
    type: [ExportedMemoryDto],
    maxItems: EXPORT_MAX_MEMORIES,
    description: 'Every memory, of every status, with its version history.',
  })
  @IsArray()
  @ArrayMaxSize(EXPORT_MAX_MEMORIES)
  @ValidateNested({ each: true })
  @Type(() => ExportedMemoryDto)
  memories!: ExportedMemoryDto[];
}

export class ImportResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Memories in the bundle.' }) memories!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Memories this import added (0 on a re-import; a merge key the user already holds is kept).',
  })
  added!: number;
  @ApiProperty({ description: 'False when the read side did not catch up in time (then `added` may be low).' }) consistent!: boolean;
}
