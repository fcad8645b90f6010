import { plainToInstance } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  validateSync,
} from 'class-validator';
import { validationExceptionFactory } from '@engram/services/http/http-exception.filter';
import { ID_MESSAGE, ID_PATTERN } from '@engram/services/http/request-fields';
import { LineError, parseTurnLines, TurnLineDto } from '../turn-lines';

/**
 * One check line: `{"type":"check","userId","checkId","category","query","askedAt","sessionId"?,
 * "expect":[…],"reject":[…]}`. An `expect` entry is a string, or an array of alternatives any one of
 * which will do ("低卡" or "low-calorie"); a `reject` entry is a string that must not be presented as
 * current (it may appear on a line marked as history); a `once` string may appear on one current
 * line at most.
 */
export class CheckLineDto {
  @Equals('check') type!: 'check';
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` }) userId!: string;
  @IsString() @Matches(ID_PATTERN, { message: `checkId ${ID_MESSAGE}` }) checkId!: string;
  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,63}$/, { message: 'category must be a lowercase slug (letters, digits, -)' })
  category!: string;
  @IsString() @IsNotEmpty() @MaxLength(4000) query!: string;
  @IsISO8601({ strict: true, strictSeparator: true }) askedAt!: string;
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` }) sessionId?: string;
  @IsArray() @ArrayMaxSize(20) expect!: (string | string[])[];
  @IsArray() @ArrayMaxSize(20) @IsString({ each: true }) reject!: string[];
  /** Strings that may appear on one current line at most: one memory per fact, not a paraphrase beside it. */
  @IsOptional() @IsArray() @ArrayMaxSize(20) @IsString({ each: true }) once?: string[];
}

export interface TruthDataset {
  readonly turns: TurnLineDto[];
  readonly checks: CheckLineDto[];
}

/** Parses and validates a whole scenario file; a bad line is a LineError naming it. */
export function parseTruthDataset(content: string): TruthDataset {
  const turns = parseTurnLines(content, (type) => type === 'turn' || type === 'check');
  const checks: CheckLineDto[] = [];
  const seen = new Map<string, number>();
  content.split(/\r?\n/).forEach((text, index) => {
    const line = index + 1;
    if (text.trim() === '') return;
    const value = JSON.parse(text) as { type: unknown }; // parseTurnLines has vetted every line's JSON and type
    if (value.type !== 'check') return;
    const dto = plainToInstance(CheckLineDto, value);
    const errors = validateSync(dto, { whitelist: true });
    if (errors.length > 0) {
      const response = validationExceptionFactory(errors).getResponse() as { message: string[] };
      throw new LineError(line, response.message.join('; '));
    }
    const wellFormed = (entry: unknown) =>
      (typeof entry === 'string' && entry.trim() !== '') ||
      (Array.isArray(entry) && entry.length > 0 && entry.every((e) => typeof e === 'string' && e.trim() !== ''));
    if (!dto.expect.every(wellFormed)) throw new LineError(line, 'expect must hold non-empty strings or non-empty arrays of them');
    if (dto.expect.length === 0 && dto.reject.length === 0 && (dto.once ?? []).length === 0)
      throw new LineError(line, 'a check needs expect, reject or once');
    const earlier = seen.get(dto.checkId);
    if (earlier !== undefined) throw new LineError(line, `checkId ${JSON.stringify(dto.checkId)} repeats line ${earlier}`);
    seen.set(dto.checkId, line);
    checks.push(dto);
  });
  return { turns, checks };
}
