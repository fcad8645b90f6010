import { plainToInstance } from 'class-transformer';
import { Equals, IsArray, IsISO8601, IsNotEmpty, IsString, Matches, MaxLength, validateSync } from 'class-validator';
import { validationExceptionFactory } from '@engram/services/http/http-exception.filter';
import { ID_MESSAGE, ID_PATTERN } from '@engram/services/http/request-fields';
import { LineError, parseTurnLines, TurnLineDto } from '../turn-lines';

/** One question line: `{"type":"question","userId","questionId","question","evidenceTurnIds":[...],"askedAt","category"}`. */
export class QuestionLineDto {
  @Equals('question') type!: 'question';
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` }) userId!: string;
  @IsString() @Matches(ID_PATTERN, { message: `questionId ${ID_MESSAGE}` }) questionId!: string;
  @IsString() @IsNotEmpty() @MaxLength(4000) question!: string;
  @IsArray()
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, message: `evidenceTurnIds ${ID_MESSAGE}` })
  evidenceTurnIds!: string[];
  @IsISO8601({ strict: true, strictSeparator: true }) askedAt!: string;
  @IsString()
  @Matches(/^[a-z][a-z0-9-]{0,63}$/, { message: 'category must be a lowercase slug (letters, digits, -)' })
  category!: string;
}

export interface EvalDataset {
  readonly turns: TurnLineDto[];
  readonly questions: QuestionLineDto[];
}

/**
 * Parses and validates a whole dataset; any bad line (not JSON, unknown type, invalid fields, a
 * repeated id, evidence that names no turn of that user or comes after the question) is a
 * LineError naming its line.
 */
export function parseEvalDataset(content: string): EvalDataset {
  const turns = parseTurnLines(content, (type) => type === 'turn' || type === 'question');
  const questions: QuestionLineDto[] = [];
  const turnLine = new Map<string, { line: number; occurredAt: number }>(); // `${userId}\u0000${turnId}`
  const questionLine = new Map<string, number>();
  let nextTurn = 0;
  content.split(/\r?\n/).forEach((text, index) => {
    const line = index + 1;
    if (text.trim() === '') return;
    const value = JSON.parse(text) as { type: unknown }; // parseTurnLines has vetted every line's JSON and type
    if (value.type === 'turn') {
      const turn = turns[nextTurn++];
      const key = `${turn.userId}\u0000${turn.turnId}`;
      const earlier = turnLine.get(key);
      if (earlier)
        throw new LineError(
          line,
          `turnId ${JSON.stringify(turn.turnId)} of user ${JSON.stringify(turn.userId)} repeats line ${earlier.line}`,
        );
      turnLine.set(key, { line, occurredAt: Date.parse(turn.occurredAt) });
      return;
    }
    const dto = plainToInstance(QuestionLineDto, value);
    const errors = validateSync(dto, { whitelist: true });
    if (errors.length > 0) {
      const response = validationExceptionFactory(errors).getResponse() as { message: string[] };
      throw new LineError(line, response.message.join('; '));
    }
    const earlier = questionLine.get(dto.questionId);
    if (earlier !== undefined) throw new LineError(line, `questionId ${JSON.stringify(dto.questionId)} repeats line ${earlier}`);
    questionLine.set(dto.questionId, line);
    questions.push(dto);
  });
  // Evidence may name turns further down the file, so it is checked once every turn is known.
  for (const question of questions) {
    const line = questionLine.get(question.questionId)!;
    if (new Set(question.evidenceTurnIds).size !== question.evidenceTurnIds.length)
      throw new LineError(line, 'evidenceTurnIds repeat an id');
    for (const turnId of question.evidenceTurnIds) {
      const turn = turnLine.get(`${question.userId}\u0000${turnId}`);
      if (!turn)
        throw new LineError(line, `evidence turn ${JSON.stringify(turnId)} is not a turn of user ${JSON.stringify(question.userId)}`);
      if (turn.occurredAt > Date.parse(question.askedAt)) {
        throw new LineError(line, `askedAt is before evidence turn ${JSON.stringify(turnId)} (line ${turn.line})`);
      }
    }
  }
  return { turns, questions };
}
