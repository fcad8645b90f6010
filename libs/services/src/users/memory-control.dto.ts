import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Min } from 'class-validator';
import { MEMORY_KINDS, MEMORY_STATUSES, PROFILE_KEY_MAX, PROFILE_MAX_ATTRIBUTES, PROFILE_TEXT_MAX } from '@engram/contracts';
import { MemoryConflictView } from '../http/memory-conflict-view.dto';
import { Absent, IsText, MaxCodePoints, textSchema } from '../http/request-fields';

export class RetractMemoryDto {
  @ApiPropertyOptional({
    description: 'Why (required here or as the `reason` query parameter); kept on the memory as `statusReason`.',
    ...textSchema(PROFILE_TEXT_MAX),
  })
  @Absent()
  @IsString()
  @MaxCodePoints(PROFILE_TEXT_MAX)
  @IsText()
  reason?: string;
}

export class RevertMemoryDto {
  @ApiProperty({
    type: 'integer',
    description: 'The version whose value comes back as a new version: an earlier one, or the current one of a retracted memory.',
    minimum: 1,
  })
  @IsInt()
  @Min(1)
  version!: number;
}

export class ProfileUpdateDto {
  @ApiProperty({
    description: `Facts the application knows for certain, attribute → value (1–${PROFILE_MAX_ATTRIBUTES}). Attributes: letters, digits and _ . : - (≤ ${PROFILE_KEY_MAX}, lower-cased), the keys conversation facts use (name, city, budget, employer …); values: non-empty text ≤ ${PROFILE_TEXT_MAX}.`,
    type: 'object',
    minProperties: 1,
    maxProperties: PROFILE_MAX_ATTRIBUTES,
    additionalProperties: { type: 'string', ...textSchema(PROFILE_TEXT_MAX) },
    example: { name: '老周', city: '杭州' },
  })
  @IsObject()
  attributes!: Record<string, unknown>;
}

export class MemoryVersionView {
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
  @ApiProperty() value!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) validTo!: string | null;
  @ApiPropertyOptional({ format: 'date-time', description: 'When what it says stops holding (a stated time scope: "今天", "this week").' })
  expiresAt?: string;
  @ApiProperty({ format: 'date-time' }) recordedAt!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) supersededAt!: string | null;
  @ApiProperty({ type: [String] }) sourceTurnIds!: string[];
}

/** A memory as `GET /v1/users/:userId/memories` lists it. */
export class MemoryRecordView {
  @ApiProperty() memoryId!: string;
  @ApiProperty() mergeKey!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind!: string;
  @ApiProperty() subject!: string;
  @ApiProperty() attribute!: string;
  @ApiProperty() value!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ enum: MEMORY_STATUSES }) status!: string;
  @ApiPropertyOptional({ description: 'Why it is not active, when the application said so.' }) statusReason?: string;
  @ApiPropertyOptional({
    type: MemoryConflictView,
    description:
      'The current value contradicts an earlier one ("我对青霉素过敏", then "我可以用青霉素"); present until the user confirms it.',
  })
  conflict?: MemoryConflictView;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
  @ApiProperty() pinned!: boolean;
  @ApiPropertyOptional({ description: 'Health data (an allergy, a condition): present and true when so.' }) sensitive?: boolean;
  @ApiProperty({ minimum: 0, maximum: 1 }) confidence!: number;
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) validTo!: string | null;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: [MemoryVersionView] }) history!: MemoryVersionView[];
}

export class MemoryCommandResponse {
  @ApiProperty({ type: MemoryRecordView, description: 'The memory after the command.' }) memory!: MemoryRecordView;
  @ApiProperty({ description: 'False when nothing changed (already retracted) or the read side did not catch up in time.' })
  changed!: boolean;
  @ApiProperty({ description: 'False when the read side did not catch up in time.' }) consistent!: boolean;
}

export class ProfileUpdateResponse {
  @ApiProperty({ type: [MemoryRecordView], description: 'The profile memories the attributes are now held in.' })
  memories!: MemoryRecordView[];
  @ApiProperty({ description: 'False when the read side did not catch up in time.' }) consistent!: boolean;
}
