import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MEMORY_KINDS, MemoryKind } from '@engram/contracts';
import { ID_MESSAGE, ID_PATTERN } from './turns.dto';

export class RecallDto {
  @ApiProperty({ example: 'u-42' })
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` })
  userId!: string;

  @ApiProperty({ example: '数据库用什么' })
  @IsString() @IsNotEmpty() @MaxLength(4000)
  query!: string;

  @ApiPropertyOptional({ description: "Adds the session's recent turns." })
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` })
  sessionId?: string;

  @ApiPropertyOptional({ default: 5, minimum: 1, maximum: 50 })
  @IsOptional() @IsInt() @Min(1) @Max(50)
  k?: number;

  @ApiPropertyOptional({ description: 'ISO instant used for time decay (default: now).' })
  @IsOptional() @IsISO8601({ strict: true, strictSeparator: true })
  now?: string;

  @ApiPropertyOptional({
    description: 'ISO instant: answer as engram knew it then (values superseded later, memories retracted, archived or expired later are as they were; memories learned later do not exist). Time decay uses it unless `now` is given.',
  })
  @IsOptional() @IsISO8601({ strict: true, strictSeparator: true })
  asOf?: string;

  @ApiPropertyOptional({
    description: 'ISO instant: what was true then according to the conversation (world time, `occurredAt`): each memory with the value it had at that instant; memories first said later, and values corrected or retracted before it, are left out. Combines with `asOf` (as engram knew it at `asOf`). Time decay uses it unless `now` is given.',
  })
  @IsOptional() @IsISO8601({ strict: true, strictSeparator: true })
  validAt?: string;

  @ApiPropertyOptional({ enum: MEMORY_KINDS, isArray: true, description: 'Only memories (and pinned facts) of these kinds, e.g. ["procedure", "preference"].' })
  @IsOptional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(MEMORY_KINDS.length) @IsIn(MEMORY_KINDS, { each: true, message: `kinds must each be one of: ${MEMORY_KINDS.join(', ')}` })
  kinds?: MemoryKind[];

  @ApiPropertyOptional({ type: [String], description: 'Only memories said in these sessions (one of their source turns is). `sessionId` is the current session, for the recent turns; it does not narrow memories.' })
  @IsOptional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(100) @Matches(ID_PATTERN, { each: true, message: `sessions ${ID_MESSAGE}` })
  sessions?: string[];

  @ApiPropertyOptional({ description: 'ISO instant: only memories said at or after it (world time: when the value was first or last said).' })
  @IsOptional() @IsISO8601({ strict: true, strictSeparator: true })
  from?: string;

  @ApiPropertyOptional({ description: 'ISO instant: only memories said before it (world time). Must be after `from`.' })
  @IsOptional() @IsISO8601({ strict: true, strictSeparator: true })
  to?: string;

  @ApiPropertyOptional({ description: 'A position from POST /v1/turns: wait (bounded) until the read side has caught up to it.' })
  @IsOptional() @IsString() @MaxLength(2000)
  after?: string;

  @ApiPropertyOptional({ description: 'Adds per-memory score components.' })
  @IsOptional() @IsBoolean()
  debug?: boolean;
}

export class ScoreComponentsView {
  @ApiProperty() relevance!: number;
  @ApiProperty() decay!: number;
  @ApiProperty() importance!: number;
  @ApiProperty() confidence!: number;
  @ApiProperty() ageDays!: number;
  @ApiProperty({ description: 'Recent use by recall, 0..1: saturating in hits, fading since the last access.' }) usage!: number;
  @ApiPropertyOptional({ description: "Share of the query's terms the memory holds, 0..1." }) coverage?: number;
  @ApiProperty({ description: 'Decay, importance, confidence and use mixed into one tie-breaker, 0..1.' }) prior!: number;
  @ApiProperty({ description: '1, or less when the memory is not what the question asks for (another speaker, not the assistant, outside the time named).' })
  steering!: number;
  @ApiPropertyOptional() bm25Rank?: number;
  @ApiPropertyOptional() knnRank?: number;
}

export class MemoryView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind!: string;
  @ApiProperty() content!: string;
  @ApiProperty() score!: number;
  @ApiProperty({ type: [String] }) sourceTurnIds!: string[];
  @ApiPropertyOptional({ type: [String], description: 'Insights only: ids of the memories the insight is derived from.' }) sources?: string[];
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiProperty() version!: number;
  @ApiPropertyOptional({ type: ScoreComponentsView }) components?: ScoreComponentsView;
}

export class FactView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind!: string;
  @ApiProperty() attribute!: string;
  @ApiProperty() value!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ type: [String] }) sourceTurnIds!: string[];
  @ApiProperty() updatedAt!: string;
  @ApiProperty() version!: number;
}

export class RecentTurnView {
  @ApiProperty() turnId!: string;
  @ApiProperty() role!: string;
  @ApiPropertyOptional() speaker?: string;
  @ApiProperty() text!: string;
  @ApiProperty() occurredAt!: string;
}

export class RecallResponse {
  @ApiProperty({ type: [FactView] }) facts!: FactView[];
  @ApiProperty({ type: [MemoryView] }) memories!: MemoryView[];
  @ApiProperty({ type: [RecentTurnView] }) recent!: RecentTurnView[];
  @ApiProperty({ description: 'A context block ready for the prompt: facts, memories, recent turns.' }) context!: string;
  @ApiProperty({ description: 'Tokens the context uses (of the configured budget).' }) tokens!: number;
  @ApiProperty({ description: 'False when `after` was given and the read side did not catch up in time.' }) consistent!: boolean;
}
