import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MEMORY_KINDS, MEMORY_STATUSES } from '@engram/contracts';

/** The export bundle: what `GET /v1/users/:userId/export` returns and `POST …/import` accepts. */
export const EXPORT_FORMAT = 'engram.export';
export const EXPORT_VERSION = 1;
export const EXPORT_MAX_MEMORIES = 10_000;

const ID_MAX = 256;
const TEXT_MAX = 32_000;

export class ExportedVersionDto {
  @ApiProperty() @IsInt() @Min(1) version!: number;
  @ApiProperty() @IsString() @MaxLength(TEXT_MAX) value!: string;
  @ApiProperty() @IsString() @MaxLength(TEXT_MAX) content!: string;
  @ApiProperty() @IsISO8601({ strict: true }) validFrom!: string;
  @ApiProperty({ nullable: true, type: String }) @IsOptional() @IsISO8601({ strict: true }) validTo!: string | null;
  @ApiProperty() @IsISO8601({ strict: true }) recordedAt!: string;
  @ApiProperty({ nullable: true, type: String }) @IsOptional() @IsISO8601({ strict: true }) supersededAt!: string | null;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) @MaxLength(ID_MAX, { each: true }) sourceTurnIds!: string[];
  @ApiPropertyOptional({ type: [String], description: 'Insights: the memories this version was derived from.' })
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) @MaxLength(ID_MAX, { each: true }) sources?: string[];
}

/** One memory, without tenant, user or resolver bookkeeping: the bundle is tenant-agnostic. */
export class ExportedMemoryDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(ID_MAX) memoryId!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1000) mergeKey!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) @IsIn(MEMORY_KINDS) kind!: (typeof MEMORY_KINDS)[number];
  @ApiProperty() @IsString() @MaxLength(1000) subject!: string;
  @ApiProperty() @IsString() @MaxLength(1000) attribute!: string;
  @ApiProperty() @IsString() @MaxLength(TEXT_MAX) value!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(TEXT_MAX) content!: string;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) @MaxLength(1000, { each: true }) entities!: string[];
  @ApiProperty() @IsNumber() @Min(0) @Max(1) confidence!: number;
  @ApiProperty() @IsNumber() @Min(0) @Max(1) importance!: number;
  @ApiProperty() @IsBoolean() ephemeral!: boolean;
  @ApiProperty() @IsBoolean() pinned!: boolean;
  @ApiProperty({ enum: MEMORY_STATUSES }) @IsIn(MEMORY_STATUSES) status!: (typeof MEMORY_STATUSES)[number];
  @ApiProperty() @IsInt() @Min(1) version!: number;
  @ApiProperty() @IsInt() @Min(1) revision!: number;
  @ApiProperty() @IsInt() @Min(1) mentionCount!: number;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) @MaxLength(ID_MAX, { each: true }) sourceTurnIds!: string[];
  @ApiPropertyOptional({ description: 'Who said the source turn, when named.' }) @IsOptional() @IsString() @MaxLength(ID_MAX) speaker?: string;
  @ApiPropertyOptional({ type: [String], description: 'What else the memory is found by, never shown (the facts read from its turn, the turn before it).' })
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(TEXT_MAX, { each: true }) keys?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Insights: ids (in this bundle) of the memories the insight is derived from.' })
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) @MaxLength(ID_MAX, { each: true }) sources?: string[];
  @ApiProperty() @IsISO8601({ strict: true }) validFrom!: string;
  @ApiProperty({ nullable: true, type: String }) @IsOptional() @IsISO8601({ strict: true }) validTo!: string | null;
  @ApiProperty() @IsISO8601({ strict: true }) createdAt!: string;
  @ApiProperty() @IsISO8601({ strict: true }) updatedAt!: string;
  @ApiProperty() @IsISO8601({ strict: true }) lastSeenAt!: string;
  @ApiProperty({ type: [ExportedVersionDto] })
  @IsArray() @ArrayMaxSize(1000) @ValidateNested({ each: true }) @Type(() => ExportedVersionDto)
  history!: ExportedVersionDto[];
}

/** A pinned fact, for people reading the bundle; import derives facts from `memories`. */
export class ExportedFactDto {
  @ApiProperty() memoryId!: string;
  @ApiProperty() attribute!: string;
  @ApiProperty() value!: string;
  @ApiProperty() content!: string;
}

export class ExportBundleDto {
  @ApiProperty({ enum: [EXPORT_FORMAT] }) @IsIn([EXPORT_FORMAT]) format!: typeof EXPORT_FORMAT;
  @ApiProperty({ enum: [EXPORT_VERSION] }) @IsIn([EXPORT_VERSION]) version!: typeof EXPORT_VERSION;
  @ApiProperty() @IsISO8601({ strict: true }) exportedAt!: string;
  @ApiPropertyOptional({ type: [ExportedFactDto], description: 'Informative: the pinned, active memories.' })
  @IsOptional() @IsArray()
  facts?: ExportedFactDto[];
  @ApiProperty({ type: [ExportedMemoryDto], description: 'Every memory, of every status, with its version history.' })
  @IsArray() @ArrayMaxSize(EXPORT_MAX_MEMORIES) @ValidateNested({ each: true }) @Type(() => ExportedMemoryDto)
  memories!: ExportedMemoryDto[];
}

export class ImportResponse {
  @ApiProperty({ description: 'Memories in the bundle.' }) memories!: number;
  @ApiProperty({ description: 'Memories this import added (0 on a re-import; a merge key the user already holds is kept).' }) added!: number;
  @ApiProperty({ description: 'False when the read side did not catch up in time (then `added` may be low).' }) consistent!: boolean;
}
