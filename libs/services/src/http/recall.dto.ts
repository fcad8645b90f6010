import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MEMORY_KINDS } from '@engram/contracts';
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
