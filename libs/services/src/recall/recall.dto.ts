import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MEMORY_KINDS, MemoryKind, recallFilterDeclaration, type RecallFilterField, type RecallFilterValues } from '@engram/contracts';
import { Absent, ID_MESSAGE, ID_PATTERN, idSchema, IsInstant, IsText, MaxCodePoints, textSchema } from '../http/request-fields';
import { RecentTurnView } from '../http/turn-view.dto';
import { MemoryConflictView } from '../http/memory-conflict-view.dto';

// Recall answers with the turn view users' turns endpoint shares.
export { RecentTurnView };

/** Decorators as if stacked on a property, top to bottom: class-validator checks them in the order it registers them, bottom first. */
const stacked = (...decorators: PropertyDecorator[]) => applyDecorators(...[...decorators].reverse());

/**
 * A recall filter field (`RECALL_FILTER_FIELDS` in libs/contracts) as the request states it: its
 * OpenAPI schema and its validation follow from its declared shape, so every filter field is
 * validated alike and adding one needs no rules here.
 */
export function RecallFilterProperty(field: RecallFilterField): PropertyDecorator {
  const { shape, maxItems, description } = recallFilterDeclaration(field);
  switch (shape) {
    case 'kinds':
      return stacked(
        ApiPropertyOptional({ enum: MEMORY_KINDS, isArray: true, minItems: 1, maxItems, description }),
        Absent(),
        IsArray(),
        ArrayNotEmpty(),
        ArrayMaxSize(maxItems!),
        IsIn(MEMORY_KINDS, { each: true, message: `${field} must each be one of: ${MEMORY_KINDS.join(', ')}` }),
      );
    case 'ids':
      return stacked(
        ApiPropertyOptional({ type: [String], minItems: 1, maxItems, items: { type: 'string', ...idSchema }, description }),
        Absent(),
        IsArray(),
        ArrayNotEmpty(),
        ArrayMaxSize(maxItems!),
        Matches(ID_PATTERN, { each: true, message: `${field} ${ID_MESSAGE}` }),
      );
    case 'instant':
      return stacked(ApiPropertyOptional({ format: 'date-time', description }), Absent(), IsInstant());
  }
}

/** Tokens of the context per zone; a zone left out takes its configured share (ENGRAM_BUDGET_*). */
export class RecallBudgetDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'The whole context, preamble and section tags included (default ENGRAM_TOKEN_BUDGET).',
    minimum: 50,
    maximum: 100000,
  })
  @Absent()
  @IsInt()
  @Min(50)
  @Max(100_000)
  total?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Pinned facts (default ENGRAM_BUDGET_FACTS).', minimum: 0, maximum: 100000 })
  @Absent()
  @IsInt()
  @Min(0)
  @Max(100_000)
  facts?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: "The assistant's procedures (default ENGRAM_BUDGET_PROCEDURES).",
    minimum: 0,
    maximum: 100000,
  })
  @Absent()
  @IsInt()
  @Min(0)
  @Max(100_000)
  procedures?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Ranked memories (default ENGRAM_BUDGET_MEMORIES).', minimum: 0, maximum: 100000 })
  @Absent()
  @IsInt()
  @Min(0)
  @Max(100_000)
  memories?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'The session summary, or the previous session carried over (default ENGRAM_BUDGET_SUMMARY).',
    minimum: 0,
    maximum: 100000,
  })
  @Absent()
  @IsInt()
  @Min(0)
  @Max(100_000)
  summary?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Recent turns (default ENGRAM_BUDGET_RECENT).', minimum: 0, maximum: 100000 })
  @Absent()
  @IsInt()
  @Min(0)
  @Max(100_000)
  recent?: number;
}

export class RecallDto implements RecallFilterValues {
  @ApiProperty({ example: 'u-42', ...idSchema })
  @IsString()
  @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` })
  userId!: string;

  @ApiProperty({ example: '数据库用什么', ...textSchema(4000) })
  @IsString()
  @MaxCodePoints(4000)
  @IsText()
  query!: string;

  @ApiPropertyOptional({ description: "Adds the session's recent turns.", ...idSchema })
  @Absent()
  @IsString()
  @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` })
  sessionId?: string;

  @ApiPropertyOptional({ type: 'integer', default: 5, minimum: 1, maximum: 50 })
  @Absent()
  @IsInt()
  @Min(1)
  @Max(50)
  k?: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'ISO instant used for time decay (default: now).' })
  @Absent()
  @IsInstant()
  now?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'ISO instant: answer as engram knew it then (values superseded later, memories retracted, archived or expired later are as they were; memories learned later do not exist). Time decay uses it unless `now` is given.',
  })
  @Absent()
  @IsInstant()
  asOf?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'ISO instant: what was true then according to the conversation (world time, `occurredAt`): each memory with the value it had at that instant; memories first said later, and values corrected or retracted before it, are left out. Combines with `asOf` (as engram knew it at `asOf`). Time decay uses it unless `now` is given.',
  })
  @Absent()
  @IsInstant()
  validAt?: string;

  @RecallFilterProperty('kinds') kinds?: MemoryKind[];
  @RecallFilterProperty('sessions') sessions?: string[];
  @RecallFilterProperty('from') from?: string;
  @RecallFilterProperty('to') to?: string;

  @ApiPropertyOptional({
    maxLength: 2000,
    description: 'A position from POST /v1/turns: wait (bounded) until the read side has caught up to it (400 for anything else).',
  })
  @Absent()
  @IsString()
  @MaxLength(2000)
  after?: string;

  @ApiPropertyOptional({
    description:
      'Adds per-memory score components, the conflicts of what is returned (a value contradicting an earlier one, unconfirmed), tokens per zone and what the budget cut (`debug`).',
  })
  @Absent()
  @IsBoolean()
  debug?: boolean;

  @ApiPropertyOptional({
    type: RecallBudgetDto,
    description:
      'Token budget by zone, filled in the order facts, procedures, memories, summary, recent; what a zone leaves unused is handed on to the zones with more to say.',
  })
  @Absent()
  @IsObject()
  @ValidateNested()
  @Type(() => RecallBudgetDto)
  budget?: RecallBudgetDto;
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
  @ApiProperty({
    description:
      '1, or less when the memory is not what the question asks for (another speaker, not the assistant, outside the time named).',
  })
  steering!: number;
  @ApiPropertyOptional({ description: "What the best match of the memory's session added to its score (session evidence), when anything." })
  session?: number;
  @ApiPropertyOptional({ type: 'integer' }) bm25Rank?: number;
  @ApiPropertyOptional({ type: 'integer' }) knnRank?: number;
}

export class MemoryView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind!: string;
  @ApiProperty() content!: string;
  @ApiProperty() score!: number;
  @ApiProperty({ type: [String] }) sourceTurnIds!: string[];
  @ApiPropertyOptional({ type: [String], description: 'Insights only: ids of the memories the insight is derived from.' })
  sources?: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
  @ApiPropertyOptional({ type: ScoreComponentsView }) components?: ScoreComponentsView;
  @ApiPropertyOptional({
    type: MemoryConflictView,
    description: 'With `debug`: the earlier statement the current value contradicts, unconfirmed.',
  })
  conflict?: MemoryConflictView;
}

export class FactView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: MEMORY_KINDS }) kind!: string;
  @ApiProperty() attribute!: string;
  @ApiProperty() value!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ type: [String] }) sourceTurnIds!: string[];
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
  @ApiPropertyOptional({
    type: MemoryConflictView,
    description: 'With `debug`: the earlier statement the current value contradicts, unconfirmed.',
  })
  conflict?: MemoryConflictView;
}

export class SummaryView {
  @ApiProperty({ description: 'The session it summarises.' }) sessionId!: string;
  @ApiProperty({ description: "True when carried over from the user's previous session into a new one." }) previous!: boolean;
  @ApiProperty({
    type: [String],
    description:
      'What the session said before its recent window, oldest first: the memories of each turn, or its words; the lines that fit the summary zone.',
  })
  lines!: string[];
}

export class ZoneTokensView {
  @ApiProperty() facts!: number;
  @ApiProperty() procedures!: number;
  @ApiProperty() memories!: number;
  @ApiProperty() summary!: number;
  @ApiProperty() recent!: number;
}

export class BudgetCutView {
  @ApiProperty({ type: [FactView] }) facts!: FactView[];
  @ApiProperty({ type: [FactView] }) procedures!: FactView[];
  @ApiProperty({ type: [MemoryView], description: 'Ranked within k but left out of the context, with their score components.' })
  memories!: MemoryView[];
  @ApiProperty({ description: 'Summary lines left out (the oldest first).' }) summaryLines!: number;
  @ApiProperty({ type: [RecentTurnView] }) recent!: RecentTurnView[];
}

export class RecallDebugView {
  @ApiProperty({ type: ZoneTokensView, description: 'Tokens each zone used (per-line estimate; `tokens` is the exact total).' })
  zones!: ZoneTokensView;
  @ApiProperty({ type: BudgetCutView, description: 'What was offered to each zone and did not fit the budget.' }) cut!: BudgetCutView;
}

/** What recall can do without and still answer: the embedder (BM25 alone then), the search index (the pinned facts and the session alone). */
export const RECALL_DEGRADATIONS = ['embedder', 'elasticsearch'] as const;
export type RecallDegradation = (typeof RECALL_DEGRADATIONS)[number];

export class RecallResponse {
  @ApiProperty({ type: [FactView] }) facts!: FactView[];
  @ApiProperty({
    type: [FactView],
    description: 'Rules for how the assistant should act (kind `procedure`): always injected, never ranked.',
  })
  procedures!: FactView[];
  @ApiProperty({ type: [MemoryView] }) memories!: MemoryView[];
  @ApiProperty({
    type: SummaryView,
    nullable: true,
    description: "The session's rolling summary (or the previous session's, in a new session).",
  })
  summary!: SummaryView | null;
  @ApiProperty({
    type: [RecentTurnView],
    description: "The session's turns after its summary (a new session: the previous session's last turns first).",
  })
  recent!: RecentTurnView[];
  @ApiProperty({ description: 'A context block ready for the prompt: facts, procedures, memories, summary, recent turns.' })
  context!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Tokens the context uses (of the configured budget).' }) tokens!: number;
  @ApiProperty({ description: 'False when `after` was given and the read side did not catch up in time.' }) consistent!: boolean;
  @ApiPropertyOptional({ type: RecallDebugView, description: 'With `debug`: tokens per zone and what the budget cut.' })
  debug?: RecallDebugView;
  @ApiPropertyOptional({
    enum: RECALL_DEGRADATIONS,
    isArray: true,
    description:
      'Present only when a dependency was unavailable and recall answered without it: `embedder` — no vector search, the memories are ranked by BM25 alone (and what was said since the embedder went down is still pending); `elasticsearch` — no search at all (distributed mode): the answer holds the pinned facts and procedures and the session, no ranked memories. Absent on a complete answer.',
  })
  degraded?: RecallDegradation[];
}
